"""Device knowledge: the built-in profiles (the YAML files here, shipped in
the wheel) and what they are made from and looked up by.

- :mod:`.profile`: profiles on disk, a versioned YAML schema validated on
  load; built-in and saved (``roofline measure``) profiles, ``find_device``;
- :mod:`.gpus`: the datasheet table, published architecture parameters of
  each GPU with the documents they come from; :mod:`.datasheet`: the
  formulas that derive a profile from them; :mod:`.regenerate`: writes and
  checks the YAML files (``python -m roofline.devices.regenerate --check``);
- :mod:`.names` (names as people type them and profilers write them) and
  :mod:`.choice` (which profile a file's kernels go on, and why);
- :mod:`.ert`: ERT results read as a measured device profile.

May import: ``roofline.core``; numpy, pyyaml. The importers and the
microbenchmarks may use it (a file names its GPU, a calibration saves a
profile), never the reverse.
"""
