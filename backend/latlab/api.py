"""All REST routes, under /api/v1."""

from fastapi import APIRouter, Depends

from latlab.alerts.router import router as alerts_router
from latlab.analysis.router import router as analysis_router
from latlab.annotations.router import router as annotations_router
from latlab.auth.router import projects_router
from latlab.auth.router import router as auth_router
from latlab.bisections.router import router as bisections_router
from latlab.core.params import plain_query
from latlab.experiments.router import router as experiments_router
from latlab.hosts.router import router as hosts_router
from latlab.ingest.router import router as ingest_router
from latlab.jobs.router import hosts_router as host_jobs_router
from latlab.jobs.router import router as jobs_router
from latlab.repos.router import router as repos_router
from latlab.runs.router import router as runs_router
from latlab.sharing.router import router as sharing_router

api_router = APIRouter(prefix="/api/v1", dependencies=[Depends(plain_query)])
api_router.include_router(auth_router)
api_router.include_router(projects_router)
api_router.include_router(ingest_router)
api_router.include_router(runs_router)
api_router.include_router(hosts_router)
api_router.include_router(host_jobs_router)
api_router.include_router(jobs_router)
api_router.include_router(repos_router)
api_router.include_router(bisections_router)
api_router.include_router(experiments_router)
api_router.include_router(analysis_router)
api_router.include_router(annotations_router)
api_router.include_router(alerts_router)
api_router.include_router(sharing_router)
