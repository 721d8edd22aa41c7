"""Device knowledge: the built-in profiles (the YAML files here, shipped in
the wheel) and what they are made from and looked up by.

- profiles: :mod:`.profile` (profiles on disk, a versioned YAML schema
  validated on load; built-in and saved, ``find_device``);
- the datasheet: :mod:`.gpus` (published architecture parameters of each
  GPU with the documents they come from), :mod:`.datasheet` (the formulas
  that derive a profile from them), :mod:`.regenerate` (writes and checks
  the YAML files: ``python -m roofline.devices.regenerate --check``),
  :mod:`.links` (the links a GPU's collectives run on: NVLink,
  NVSwitch, xGMI, as roofs), :mod:`.observed` (kernel floors and library efficiencies seen in
  real traces, beside the datasheet);
- measured profiles: :mod:`.ert` (ERT results), :mod:`.rocprof_roofline`
  (rocprof-compute's ``roofline.csv``), :mod:`.trust` (whether a measured
  profile's roofs hold for a given file);
- which profile a file goes on: :mod:`.choice` (decides and says why),
  with :mod:`.names` (names as people type them and profilers write them),
  :mod:`.figures` (a GPU told by its figures when its name does not),
  :mod:`.choice_checks` (a file's figures against the chosen profile) and
  :mod:`.choice_types` (the result types both share).

May import: ``roofline.core``; numpy, pyyaml. The importers and the
microbenchmarks may use it (a file names its GPU, a calibration saves a
profile), never the reverse.
"""
