"""How a job fails: each error names the status the job ends in."""


class JobError(Exception):
    status = "failed"


class JobTimedOut(JobError):
    status = "timed_out"


class JobCancelled(JobError):
    status = "cancelled"
