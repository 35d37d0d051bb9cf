// Package npshape prints shapes as NumPy does, for the errors of arrays
// and ops alike.
package npshape
