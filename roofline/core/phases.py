"""The phases of a training step, or of a serving step, a trace's time is
split into (readers mark them, reports sum them): the order is the order
they are shown in. The serving phases are those of an inference engine's
step (vLLM's ``execute_...context_N(...)_generation_M(...)`` range,
SGLang's ``step[EXTEND ...]``/``step[DECODE ...]``): prefill, decode, or a
step that batches both."""

PHASES = ("forward", "backward", "optimizer", "communication", "data loading",
          "prefill", "decode", "prefill+decode", "other")
SERVING_PHASES = ("prefill", "decode", "prefill+decode")
TRAINING_PHASES = ("forward", "backward", "optimizer", "data loading")
