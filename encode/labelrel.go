package encode

// Derived relations (theory.Rel) are label facts, like arg(x) = ret(y):
// they fold to constants once the return values they read are known.
