# One image for the api, the ingest worker, beat and the migrate step (docker-compose.yml).
FROM node:20-bookworm-slim AS dashboard
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
COPY backend/pyproject.toml backend/pyproject.toml
COPY backend/latlab backend/latlab
RUN pip install --no-cache-dir ./backend
COPY migrations migrations
COPY --from=dashboard /src/frontend/dist frontend/dist
ENV LATLAB_FRONTEND_DIST=/app/frontend/dist
EXPOSE 8000
CMD ["uvicorn", "latlab.main:app", "--host", "0.0.0.0", "--port", "8000"]
