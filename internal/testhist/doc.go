// Package testhist gives tests their histories and second opinions:
// random small histories, the real data sets of ../shared/data, and
// Porcupine's models of satmon's objects.
package testhist
