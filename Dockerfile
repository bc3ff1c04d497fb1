# One image for the api, the ingest worker, beat and the migrate step (target `lab`), and a
# runner image with the toolchains the suites build with (target `runner`): docker-compose.yml.
FROM node:20-bookworm-slim AS dashboard
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm AS lab
WORKDIR /app
COPY contract contract
COPY workers/pyproject.toml workers/pyproject.toml
COPY workers/latlab_workers workers/latlab_workers
COPY workers/suites workers/suites
COPY backend/pyproject.toml backend/pyproject.toml
COPY backend/latlab backend/latlab
RUN pip install --no-cache-dir ./contract ./workers ./backend
COPY migrations migrations
COPY --from=dashboard /src/frontend/dist frontend/dist
ENV LATLAB_FRONTEND_DIST=/app/frontend/dist
EXPOSE 8000
CMD ["uvicorn", "latlab.main:app", "--host", "0.0.0.0", "--port", "8000", "--timeout-keep-alive", "20", "--no-proxy-headers"]

# A lab host: builds the suites' programs in its own cache, with the toolchains the suites
# declare ([toolchain] in each suite.toml), installed by the same script as on bare hosts.
FROM lab AS runner
COPY scripts scripts
RUN scripts/bootstrap.sh --suites && python scripts/toolchain.py install "$(command -v python)" \
    && rm -rf /var/lib/apt/lists/*
CMD ["sh", "-c", "exec celery -A latlab_workers.app worker -Q host.${LATLAB_HOST_NAME:-$HOSTNAME} -c 1"]
