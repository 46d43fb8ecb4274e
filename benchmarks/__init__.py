"""Ratio benchmarks: each figure is measured against a baseline taken in the same run."""
