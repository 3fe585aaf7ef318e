"""How sure a result is: one vocabulary for every value the package computes.

A value is set with its :class:`Status` where it is computed, never read back from its ``certificate`` text.
The statuses tell proofs from verifications:

* ``proved``: a computation over QQ, interval arithmetic (Krawczyk boxes), or a cited theorem;
* ``verified``: a check that fails only with small probability or under stated conditions: two primes that
  agree (a count or rank modulo p equals the one over QQ for all but finitely many p), a passed trace test;
* ``heuristic``: supported by evidence that proves nothing (a numeric rank stable under doubling the samples);
* ``lower_bound``, ``upper_bound``: the true value is at least, at most, the one given;
* ``truncated``: complete only through a stated degree;
* ``unreliable``: the computation disagrees with itself (primes that disagree, a failed check);
* ``not_computed``: no value (a time limit, a memory limit, a method that does not apply).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any


class Status(str, Enum):
    """How sure a value is (the JSON ``status`` field)."""

    PROVED = "proved"
    VERIFIED = "verified"
    HEURISTIC = "heuristic"
    LOWER_BOUND = "lower_bound"
    UPPER_BOUND = "upper_bound"
    TRUNCATED = "truncated"
    UNRELIABLE = "unreliable"
    NOT_COMPUTED = "not_computed"

    @property
    def certain(self) -> bool:
        """Whether the value is the value (proved or verified), not a bound or an estimate."""
        return self in (Status.PROVED, Status.VERIFIED)

    @property
    def label(self) -> str:
        """'lower bound', 'not computed', ...: the status as words."""
        return self.value.replace("_", " ")

    def __str__(self) -> str:
        return self.value


def weakest(statuses: list[Status]) -> Status:
    """The least sure of several statuses (a value built from several parts is as sure as its weakest)."""
    order = list(Status)
    return max(statuses, key=order.index) if statuses else Status.NOT_COMPUTED


class Result:
    """Base of result objects: ``to_dict`` (subclasses define it), JSON, and the one-line text (``str``)."""

    status: Status = Status.NOT_COMPUTED

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON (values that JSON does not know, as their text)."""
        return json.dumps(self.to_dict(), indent=indent, default=str)

    def line(self) -> str:
        """The one-line text of the result."""
        return str(self).splitlines()[0] if str(self) else ""
