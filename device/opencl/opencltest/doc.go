// Package opencltest opens the device pairs that multi-device tests need,
// skipping the test where the machine has none, as net/http/httptest
// serves the tests of HTTP code.
package opencltest
