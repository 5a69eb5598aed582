"""A spec's timing block (workflow/scripts/README.md, "Timing rules"), as the conductor reads it."""

from dataclasses import dataclass

from jwtbench import stopping_rule


@dataclass
class Timing:
    warmup_seconds: float
    samples: int
    target_sample_seconds: float
    max_cell_seconds: float
    warmup_max_seconds: float = 0.0  # 0: no steadiness check (calibration's "Until steady")
    steady_window: int = 5
    steady_tolerance: float = 0.03
    process_warmup_seconds: float = 0.0  # the warm-up of the first cell a process warms up
    workers: int = 1  # the conductor's worker processes per job, taking the rounds in turn
    target: stopping_rule.Target = None  # the stopping rule: min_samples, target_ci_pct, confidence

    @classmethod
    def from_spec(cls, timing):
        return cls(
            float(timing["warmup_seconds"]),
            int(timing["samples"]),
            float(timing["target_sample_seconds"]),
            float(timing["max_cell_seconds"]),
            float(timing.get("warmup_max_seconds", cls.warmup_max_seconds)),
            int(timing.get("steady_window", cls.steady_window)),
            float(timing.get("steady_tolerance", cls.steady_tolerance)),
            float(timing.get("process_warmup_seconds", cls.process_warmup_seconds)),
            int(timing.get("workers", cls.workers)),
            stopping_rule.Target.from_timing(timing),
        )

    @property
    def planned_samples(self):
        """The samples a cell must fit in its time (README, "Calibration"): min_samples when
        the stopping rule may stop it earlier than the cap, else the cap."""
        if self.target.target_ci_pct > 0:
            return min(self.target.min_samples, self.samples)
        return self.samples
