"""Microbenchmarks that calibrate a device (import name: roofline.microbench)."""
