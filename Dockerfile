# One image for the api, the ingest worker, beat, the migrate step and the runner
# (docker-compose.yml). A runner image for real lab hosts also needs the suites' toolchains.
FROM node:20-bookworm-slim AS dashboard
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
COPY workers/pyproject.toml workers/pyproject.toml
COPY workers/latlab_contract workers/latlab_contract
COPY workers/latlab_workers workers/latlab_workers
COPY workers/suites workers/suites
COPY backend/pyproject.toml backend/pyproject.toml
COPY backend/latlab backend/latlab
RUN pip install --no-cache-dir ./workers ./backend
COPY migrations migrations
COPY --from=dashboard /src/frontend/dist frontend/dist
ENV LATLAB_FRONTEND_DIST=/app/frontend/dist
EXPOSE 8000
CMD ["uvicorn", "latlab.main:app", "--host", "0.0.0.0", "--port", "8000"]
