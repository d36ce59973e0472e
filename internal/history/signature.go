package history

// RetKind says what a method's return action may carry.
type RetKind uint8

// Return forms.
const (
	RetNone     RetKind = iota + 1 // nothing: add, write, lock, acquire
	RetValue                       // one value, possibly a special one: rem, read, exchange
	RetBool                        // true or false: the set's methods
	RetOptional                    // nothing, or one tag: unlock, release; a get's string ("" when nothing)
	RetStatus                      // ok or fail: cas
)

// Signature describes one method of one object as it is written in logs.
type Signature struct {
	Method  Method
	Names   []string // accepted spellings in a log, the first is canonical
	MinArgs int
	MaxArgs int
	Ret     RetKind
}

var collectionAdd = []string{"add", "push", "put", "enqueue", "offer", "insert"}
var collectionRem = []string{"rem", "remove", "pop", "get", "dequeue", "poll", "take"}

// signatures is indexed by object (sigsOf): the reader looks a method up
// at every call of a log.
var signatures = [...][]Signature{
	Queue: {
		{Add, collectionAdd, 1, 1, RetNone},
		{Rem, collectionRem, 0, 0, RetValue},
	},
	Stack: {
		{Add, collectionAdd, 1, 1, RetNone},
		{Rem, collectionRem, 0, 0, RetValue},
	},
	// add(v, p) adds value v with integer priority p; add(p) is add(p, p).
	PQueue: {
		{Add, collectionAdd, 1, 2, RetNone},
		{Rem, append([]string{"removemax", "deletemax"}, collectionRem...), 0, 0, RetValue},
	},
	Set: {
		{Add, []string{"add", "insert", "put"}, 1, 1, RetBool},
		{Rem, []string{"remove", "rem", "delete", "erase"}, 1, 1, RetBool},
		{Contains, []string{"contains", "has", "member", "lookup", "find"}, 1, 1, RetBool},
	},
	Register: {
		{Write, []string{"write", "set", "store"}, 1, 1, RetNone},
		{Read, []string{"read", "get", "load"}, 0, 0, RetValue},
	},
	Lock: {
		{LockM, []string{"lock", "acquire"}, 0, 1, RetNone},
		{Unlock, []string{"unlock", "release"}, 0, 0, RetOptional},
	},
	Semaphore: {
		{Acquire, []string{"acquire", "down", "p", "wait"}, 0, 1, RetNone},
		{Release, []string{"release", "up", "v", "signal"}, 0, 0, RetOptional},
	},
	Exchanger: {
		{Exchange, []string{"exchange", "swap"}, 1, 1, RetValue},
	},
	// cas(old, new) takes two arguments (Label.Old and Label.Arg). A read
	// returns nil while the register is absent.
	CASRegister: {
		{Write, []string{"write", "set", "store", "put"}, 1, 1, RetNone},
		{Read, []string{"read", "get", "load"}, 0, 0, RetValue},
		{CAS, []string{"cas", "compare-and-set", "compareandset", "compare_and_swap"}, 2, 2, RetStatus},
	},
	// put and get are the register's write and read: the theory treats
	// them so. get returns nothing for the empty string.
	StringRegister: {
		{Write, []string{"put", "write", "set"}, 1, 1, RetNone},
		{Read, []string{"get", "read"}, 0, 0, RetOptional},
		{Append, []string{"append"}, 1, 1, RetNone},
	},
}

// Signatures lists the methods of an object.
func Signatures(o Object) []Signature { return sigsOf(o) }

func sigsOf(o Object) []Signature {
	if int(o) >= len(signatures) {
		return nil
	}
	return signatures[o]
}

// LookupMethod finds the signature of a method spelled name (any case)
// for object o.
func LookupMethod(o Object, name string) (Signature, bool) {
	sigs := sigsOf(o)
	// As written first: logs mostly spell methods as the names listed.
	for i := range sigs {
		for _, n := range sigs[i].Names {
			if n == name {
				return sigs[i], true
			}
		}
	}
	for i := range sigs {
		for _, n := range sigs[i].Names {
			if equalFold(n, name) {
				return sigs[i], true
			}
		}
	}
	return Signature{}, false
}

// SignatureOf returns the signature of method m of object o.
func SignatureOf(o Object, m Method) (Signature, bool) {
	sigs := sigsOf(o)
	for i := range sigs {
		if sigs[i].Method == m {
			return sigs[i], true
		}
	}
	return Signature{}, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
