"""The results of choosing a device (:mod:`.choice`), in a module of their
own so that the checks beside the choice (:mod:`.choice_checks`) build
them without importing the choice back."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.model import Device


@dataclass(frozen=True)
class DeviceChoice:
    device: Device
    profile: str                    # the profile's stem, or the path given
    reason: str = ""                # why this profile (empty: the user named it exactly)
    warnings: tuple[str, ...] = ()  # --device against the file's GPU, several GPUs named
    # why the roofs may not be the GPU's, for the report's banner as well as stderr: a stand-in or
    # closest profile, figures of the file that contradict the profile its name picked
    doubts: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProfileInfo:
    """What choosing needs from a profile file, read without parsing it."""

    stem: str
    path: Path
    origin: str                     # "saved" or "built-in"
    name: str
    kind: str | None
    capability: str | None
    gpu_name: str | None            # the GPU a measured profile was measured on
    identity: dict | None = None    # what a file's device properties must match (AMD profiles)
    sms: int | None = None          # SMs or compute units, as the profile states them
    memory_bytes: float | None = None
    same_as: str | None = None      # the profile whose figures (and roofs) this one shares (MI210: mi250-gcd)

    @property
    def shown(self) -> str:
        return self.gpu_name or self.name
