"""The paper report and its sections, with the figures."""

from m2bridge.report.paper import write_report

__all__ = ["write_report"]
