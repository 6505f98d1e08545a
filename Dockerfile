# Penta in one container: `docker run -p 8000:8000 -v penta-data:/data penta`
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PENTA_DATA_DIR=/data

WORKDIR /app

COPY pyproject.toml README.md ./
COPY app/ app/
# The gettext catalogs are compiled here (.po → .mo, fuzzy entries left out): build output.
RUN pip install --no-cache-dir -e . \
    && pybabel compile --statistics -d app/locales -D messages

COPY migrations/ migrations/
COPY templates/ templates/
COPY static/ static/
COPY alembic.ini ./

# The optimal strategy's table is built into the image, so the first game never waits for it.
RUN PENTA_DATA_DIR=/app/prebuilt python -m app.strategy build --path /app/prebuilt/strategy \
    && groupadd --system --gid 10001 penta \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data penta \
    && mkdir -p /data && chown 10001:10001 /data

ENV PENTA_STRATEGY_TABLE=/app/prebuilt/strategy \
    FORWARDED_ALLOW_IPS=127.0.0.1
USER 10001:10001
VOLUME /data
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# Migrations run in the app's start-up, before it serves a request.
# Proxy headers are believed only from FORWARDED_ALLOW_IPS: set it to your proxy (README).
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--timeout-graceful-shutdown", "5"]
