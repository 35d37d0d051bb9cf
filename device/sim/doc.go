// Package sim is a simulated device: device memory is separate host memory
// and every allocation and transfer is counted, so residency can be tested
// without a GPU — by this library and by its users. A capture (package
// device/capture) on a sim records its launches and transfers and
// replays them by calling them again.
package sim
