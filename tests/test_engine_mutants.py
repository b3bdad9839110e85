"""Tests added because a mutant of the engine survived the suite (benchmarks/mutation.py): each says which
rule it protects and quotes its seed."""
