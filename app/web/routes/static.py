"""The static files (:mod:`app.web.assets`): hashed names cached for good, plain names
checked each time, gzip where the browser takes it, 304 for a copy the browser has."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from app.web.assets import ASSETS, IMMUTABLE, REVALIDATE, accepts_gzip

router = APIRouter(include_in_schema=False)


@router.get("/static/{name:path}")
def static_file(name: str, request: Request) -> Response:
    found = ASSETS.find(name)
    if found is None:
        return PlainTextResponse("Not Found", status_code=404)
    asset, hashed = found
    headers = {"cache-control": IMMUTABLE if hashed else REVALIDATE, "etag": asset.etag}
    if asset.compressible:
        headers["vary"] = "Accept-Encoding"
    if asset.etag in request.headers.get("if-none-match", "").replace("W/", "").split(", "):
        return Response(status_code=304, headers=headers)
    body = asset.body
    if asset.compressible and accepts_gzip(request.headers.get("accept-encoding", "")):
        body = asset.gzipped()
        headers["content-encoding"] = "gzip"
    return Response(body, media_type=asset.media_type, headers=headers)
