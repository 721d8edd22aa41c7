"""The command-line interface: one module per command, heavy imports inside
each command's run function so that `roofline --help` stays instant."""
