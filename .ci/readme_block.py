"""Print the N-th fenced ```sh block of README.md (1-based): CI runs exactly
what a newcomer pastes."""
import re
import sys
from pathlib import Path

blocks = re.findall(r"```sh\n(.*?)```", (Path(__file__).parents[1] / "README.md").read_text(), flags=re.S)
print(blocks[int(sys.argv[1]) - 1])
