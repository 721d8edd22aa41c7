"""The package version, alone in a module that imports nothing, so every
layer (the microbenchmarks writing it into a profile, the report footer)
can name it without importing the package's entry points."""
__version__ = "0.1.0"
