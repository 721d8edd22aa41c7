"""Built-in device profiles (YAML), shipped inside the wheel as roofline.devices."""
