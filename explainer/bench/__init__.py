"""Benchmarks: measured figures, printed; speed is reported, never asserted."""
