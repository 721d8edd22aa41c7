"""The phases of a training step a trace's time is split into (readers
mark them, reports sum them): the order is the order they are shown in."""

PHASES = ("forward", "backward", "optimizer", "communication", "data loading", "other")
