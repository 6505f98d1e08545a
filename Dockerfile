# Penta in one container: `docker run -p 127.0.0.1:8000:8000 -v penta-data:/data penta`
# Two stages: the first installs the locked dependencies with uv, builds the strategy table and
# compiles the catalogs; the image keeps only their results (no uv, no pip cache: 60 MB less).
# The first stage's layers follow what changes least: the locked dependencies, then the rules and
# the strategy code with the table built from them, then everything else. A code or template
# change rebuilds only the last layers; only a change to the rules or the strategy rebuilds the
# table. Python 3.11: the version CI tests the project on.
FROM python:3.11-slim AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_NO_CACHE=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/opt/venv \
    PATH=/opt/venv/bin:$PATH

# uv (the version the Makefile pins) installs exactly what uv.lock holds, nothing of the day's.
RUN python -m venv /opt/uv \
    && /opt/uv/bin/pip install --no-cache-dir uv==0.13.9

WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN /opt/uv/bin/uv sync --frozen --no-dev --no-install-project

# The optimal strategy's table is built into the image, so the first game never waits for it.
# Its file name hashes these very sources, which is why only they come before it.
COPY app/__init__.py app/
COPY app/rules/ app/rules/
COPY app/strategy/ app/strategy/
RUN python -m app.strategy build --path /opt/strategy

COPY README.md LICENSE alembic.ini ./
COPY migrations/ migrations/
COPY templates/ templates/
COPY static/ static/
# The dashboard, the alerts and the proxy's configuration ship with the image (README,
# "Metrics, logs and alerts"): docker run --rm penta cat deploy/grafana/penta.json
COPY deploy/ deploy/
COPY app/ app/
# The project itself (for the `penta` command; without recompiling the dependencies, whose
# bytecode is not byte-for-byte repeatable and would make the image's copy of the environment
# a new layer at every code change), the gettext catalogs compiled (.po → .mo, fuzzy entries
# left out: build output, never committed), and the code compiled to bytecode as uv did the
# dependencies', so that no start of the container spends its time compiling.
RUN UV_COMPILE_BYTECODE=0 /opt/uv/bin/uv sync --frozen --no-dev \
    && pybabel compile --statistics -d app/locales -D messages \
    && python -m compileall -q app migrations

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    PENTA_DATA_DIR=/data \
    PENTA_STRATEGY_TABLE=/opt/strategy

RUN groupadd --gid 10001 penta \
    && useradd --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin penta \
    && mkdir -p /data \
    && chown 10001:10001 /data

COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/strategy /opt/strategy
COPY --from=build /app /app
WORKDIR /app
USER 10001:10001
VOLUME /data
EXPOSE 8000

# A short interval: "healthy" within seconds of serving rather than after 30.
HEALTHCHECK --interval=3s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]

# `penta serve` checks the data folder, the settings and the database (one line if one is
# wrong), runs the migrations, then serves. Proxy headers are believed only from
# PENTA_TRUSTED_PROXIES, and other hosts than PENTA_PUBLIC_URL's are refused (README).
CMD ["penta", "serve", "--host", "0.0.0.0", "--port", "8000"]
