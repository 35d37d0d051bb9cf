// Package devkit holds what Device implementations in this module share:
// the atomic Stats counters, close hooks and per-device values. It is
// plumbing, kept out of package device's public surface.
package devkit
