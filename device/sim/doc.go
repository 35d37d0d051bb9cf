// Package sim is a simulated device: device memory is separate host memory
// and every allocation and transfer is counted, so residency can be tested
// without a GPU — by this library and by its users.
package sim
