"""A local LTI 1.3 platform (an LMS, as far as tutorgraph can tell) for the tests.

It signs id_tokens with its own RSA key (published at /jwks), answers the OIDC auth request the
tool's login redirects to with an auto-posting form (as Moodle or Canvas do), issues access
tokens to a tool that proves itself with a JWT signed by the key at the tool's /lti/jwks, and
keeps the scores the tool posts to its line item. `fail_scores` makes the next posts fail."""

from __future__ import annotations

import html
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Form, Header, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pylti1p3.registration import Registration

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/"
KID = "platform-key-1"
CLIENT_ID = "tutorgraph-tool"
DEPLOYMENT = "deployment-1"


@dataclass
class Platform:
    base: str = ""  # set once its server listens
    tool_jwks_url: str = ""
    roles: dict[str, list[str]] = field(default_factory=dict)  # login_hint -> LTI roles
    scores: list[dict[str, Any]] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    fail_scores: int = 0
    jwks_delay: float = 0.0  # seconds its key set takes to answer
    jwks_cache_control: str = ""  # its key set's Cache-Control header
    jwks_fetches: int = 0

    def __post_init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_pem = self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        public = self.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.jwk = {**Registration.get_jwk(public.decode()), "kid": KID}

    @property
    def issuer(self) -> str:
        return self.base

    def registration(self, course: str) -> dict[str, Any]:
        """What its admin gives the tool (tutorgraph's `lti.platforms` entry)."""
        return {
            "issuer": self.issuer,
            "client_id": CLIENT_ID,
            "auth_login_url": f"{self.base}/auth",
            "auth_token_url": f"{self.base}/token",
            "key_set_url": f"{self.base}/jwks",
            "deployment_ids": [DEPLOYMENT],
            "course": course,
        }

    def login_url(self, tool: str, user: str, *, issuer: str | None = None) -> str:
        """Where the LMS sends a learner who clicks the tool's link (third-party login)."""
        query = httpx.QueryParams(
            {
                "iss": issuer or self.issuer,
                "login_hint": user,
                "target_link_uri": f"{tool}/lti/launch",
                "lti_message_hint": "resource-link-1",
                "client_id": CLIENT_ID,
            }
        )
        return f"{tool}/lti/login?{query}"

    def id_token(self, *, nonce: str, user: str, redirect_uri: str, **override: Any) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": CLIENT_ID,
            "sub": user,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": f"Learner {user}",
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "deployment_id": DEPLOYMENT,
            CLAIM + "target_link_uri": redirect_uri,
            CLAIM + "resource_link": {"id": "resource-link-1", "title": "Python unit"},
            CLAIM + "roles": self.roles.get(
                user, ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
            ),
            AGS + "claim/endpoint": {
                "scope": [AGS + "scope/lineitem", AGS + "scope/score"],
                "lineitem": f"{self.base}/lineitems/1",
            },
        }
        claims.update(override)
        return jwt.encode(claims, self.private_pem, algorithm="RS256", headers={"kid": KID})

    def app(self) -> FastAPI:
        app = FastAPI()

        @app.get("/jwks")
        def jwks() -> Response:
            self.jwks_fetches += 1
            time.sleep(self.jwks_delay)
            headers = {"Cache-Control": self.jwks_cache_control} if self.jwks_cache_control else {}
            return JSONResponse({"keys": [self.jwk]}, headers=headers)

        @app.get("/auth")
        def auth(
            client_id: str,
            redirect_uri: str,
            login_hint: str,
            state: str,
            nonce: str,
            response_type: str,
            scope: str,
        ) -> Response:
            if (client_id, response_type, scope) != (CLIENT_ID, "id_token", "openid"):
                return Response("bad auth request", status_code=400)
            token = self.id_token(nonce=nonce, user=login_hint, redirect_uri=redirect_uri)
            page = (
                f'<form id="launch" method="post" action="{html.escape(redirect_uri)}">'
                f'<input type="hidden" name="id_token" value="{token}">'
                f'<input type="hidden" name="state" value="{html.escape(state)}">'
                "</form><script>document.getElementById('launch').submit()</script>"
            )
            return HTMLResponse(page)

        @app.post("/token")
        def token(
            grant_type: str = Form(),
            client_assertion: str = Form(),
            scope: str = Form(""),
        ) -> Response:
            keys = httpx.get(self.tool_jwks_url, timeout=10).json()["keys"]
            key = jwt.PyJWK(keys[0]).key
            try:
                claims = jwt.decode(
                    client_assertion, key, algorithms=["RS256"], audience=f"{self.base}/token"
                )
            except jwt.PyJWTError as exc:
                return JSONResponse({"error": str(exc)}, status_code=401)
            if grant_type != "client_credentials" or claims["iss"] != CLIENT_ID:
                return JSONResponse({"error": "invalid_client"}, status_code=401)
            issued = secrets.token_urlsafe(16)
            self.tokens.add(issued)
            return JSONResponse({"access_token": issued, "token_type": "Bearer", "scope": scope})

        @app.post("/lineitems/1/scores")
        async def scores(request: Request, authorization: str = Header("")) -> Response:
            if authorization.removeprefix("Bearer ") not in self.tokens:
                return Response(status_code=401)
            if self.fail_scores > 0:
                self.fail_scores -= 1
                return Response("busy", status_code=503)
            if request.headers.get("content-type") != "application/vnd.ims.lis.v1.score+json":
                return Response(status_code=415)
            self.scores.append(json.loads(await request.body()))
            return Response(status_code=200)

        return app
