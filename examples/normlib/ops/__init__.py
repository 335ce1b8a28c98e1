from .rms_norm import rms_norm_forward  # noqa: F401
