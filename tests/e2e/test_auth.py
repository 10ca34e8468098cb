"""End-to-end: Kytos' auth on a real kytosd (docs/auth.md): kytosd -C, the
login and users endpoints with Kytos' codes and bodies, tokens PyJWT
accepts, authenticate_urls on every route kind, api_auth_all, roles,
machine tokens, revocation, login throttling, the audit file, the secret
kept in the data directory (TAP output)."""
import base64
import json
import os
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kytosd_harness import KYTOSD, Kytosd, Tap  # noqa: E402

try:
    import jwt  # PyJWT, what Kytos signs and checks tokens with
except ImportError:  # pragma: no cover
    # the PATH's python3 may be one without Debian's packages (python3-jwt)
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    jwt = None

t = Tap()
AUTH = "/api/kytos/core/auth/"
KIT = "/api/kytos/testkit/"


def basic(user, pw):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()}


def bearer(tok):
    return {"Authorization": "Bearer " + tok}


def create_user_cli(k, lines):
    """kytosd -C with four lines on stdin, on k's data directory."""
    p = subprocess.run([KYTOSD, "-C", "--data-dir", os.path.join(k.dir, "data")],
                       input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def login(k, user, pw):
    st, _, js, _ = k.request("GET", AUTH + "login/", headers=basic(user, pw))
    return js["token"] if st == 200 else None


audit_path = None
k = Kytosd(napps=["testkit.so", "hello.so"],
           settings={"authenticate_urls": ["kytos/testkit"], "api_login_max_failures": 3,
                     "api_login_max_delay_s": 2})
try:
    # ---- before any user: the users endpoints need a token, as Kytos' ----
    st, _, js, _ = k.request("GET", AUTH + "users/")
    t.ok(st == 401 and js == {"error": "Token not sent or expired: The attribute 'content' has an invalid value 'None'."},
         "users/ without a token: 401 with Kytos' body", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "users/", headers={"Authorization": "Token abc"})
    t.ok(st == 401 and js["error"] == "Token not sent or expired: list index out of range",
         "a header without 'Bearer ': Kytos' IndexError message", js)
    st, _, js, _ = k.request("GET", "/api/kytos/core/status/")
    t.ok(st == 200 and js["auth"]["enabled"] is True and js["auth"]["all"] is False,
         "status/ says whether auth is on", js.get("auth") if js else st)

    # ---- the secret: made at first start, 0600, never in config/ ----
    secret_file = os.path.join(k.dir, "data", "jwt_secret")
    mode = stat.S_IMODE(os.stat(secret_file).st_mode) if os.path.exists(secret_file) else None
    t.ok(mode == 0o600, "jwt_secret made in the data directory with mode 0600", oct(mode or 0))
    secret = open(secret_file).read().strip()
    st, _, js, _ = k.request("GET", "/api/kytos/core/config/")
    t.ok(st == 200 and "jwt_secret" not in js and secret not in json.dumps(js),
         "config/ never shows the secret")

    # ---- kytosd -C from a pipe (kytosd stopped: the embedded store is one process's) ----
    k.stop()
    rc, out = create_user_cli(k, ["admin1", "admin1@example.org", "Adm1nPassw0rd", "Adm1nPassw0rd"])
    t.ok(rc == 0 and "User successfully created" in out, "kytosd -C creates the first user from stdin", out)
    rc, out = create_user_cli(k, ["admin1", "admin1@example.org", "Adm1nPassw0rd", "Adm1nPassw0rd"])
    t.ok(rc != 0 and "Error: admin1 already exist." in out, "kytosd -C: a taken username, Kytos' words", out)
    rc, out = create_user_cli(k, ["bad user", "x", "short", "short"])
    t.ok(rc != 0 and "username: String should match pattern" in out and "email: value is not a valid email" in out
         and "password: String should have at least 8 characters" in out, "kytosd -C: Kytos' validation messages", out)
    rc, out = create_user_cli(k, ["u2", "u2@example.org", "Adm1nPassw0rd", "Different1X"])
    t.ok(rc != 0, "kytosd -C: passwords that differ are refused", out)
    k = Kytosd(reuse=k, napps=[], settings={"authenticate_urls": ["kytos/testkit"], "api_login_max_failures": 3,
                                            "api_login_max_delay_s": 2})

    # ---- login ----
    st, _, js, _ = k.request("GET", AUTH + "login/")
    t.ok(st == 400 and js["description"] == "Authorization header missing", "login without a header: 400", js)
    st, _, js, _ = k.request("GET", AUTH + "login/", headers={"Authorization": "Basic !!notbase64"})
    t.ok(st == 400 and js["description"] == "Credentials were not correctly set.", "login, bad credentials: 400", js)
    st, _, js, _ = k.request("GET", AUTH + "login/", headers=basic("nobody", "x"))
    t.ok(st == 404 and js["description"] == "User nobody not found", "login, unknown user: 404", js)
    st, _, js, _ = k.request("GET", AUTH + "login/", headers=basic("admin1", "Wr0ngPassword"))
    t.ok(st == 401 and js["description"] == "Incorrect password", "login, wrong password: 401", js)
    before = int(time.time())
    st, _, js, _ = k.request("GET", AUTH + "login/", headers=basic("admin1", "Adm1nPassw0rd"))
    t.ok(st == 200 and set(js) == {"token"}, "login: 200 {token}", js)
    tok = js["token"]
    if jwt:
        claims = jwt.decode(tok, secret, algorithms=["HS256"])
        t.ok(claims["username"] == "admin1" and claims["iss"] == "Kytos NApps Server"
             and before + 180 * 60 <= claims["exp"] <= int(time.time()) + 180 * 60 + 1,
             "the token is an HS256 JWT PyJWT accepts, with Kytos' claims and 180 min", claims)
        kytos_tok = jwt.encode({"username": "admin1", "iss": "Kytos NApps Server", "exp": int(time.time()) + 600},
                               secret, algorithm="HS256")
        st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(kytos_tok))
        t.ok(st == 200, "a token PyJWT signed (as Kytos-ng does) is accepted", (st, js))
        none_tok = jwt.encode({"username": "admin1", "iss": "Kytos NApps Server", "exp": int(time.time()) + 600},
                              None, algorithm="none")
        st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(none_tok))
        t.ok(st == 401 and "alg" in js["error"], "alg none: 401", js)
        other = jwt.encode({"username": "admin1", "iss": "Kytos NApps Server", "exp": int(time.time()) + 600},
                           "not the secret", algorithm="HS256")
        st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(other))
        t.ok(st == 401 and js["error"] == "Token not sent or expired: Signature verification failed",
             "another key: 401 with PyJWT's message", js)
        old = jwt.encode({"username": "admin1", "iss": "Kytos NApps Server", "exp": int(time.time()) - 5},
                         secret, algorithm="HS256")
        st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(old))
        t.ok(st == 401 and js["error"] == "Token not sent or expired: Signature has expired", "expired: 401", js)
    else:
        print("# SKIP PyJWT checks: python3-jwt is not installed")

    # ---- users ----
    H = bearer(tok)
    st, _, js, _ = k.request("GET", AUTH + "users/", headers=H)
    u = js["users"][0] if st == 200 and js.get("users") else {}
    t.ok(st == 200 and len(js["users"]) == 1 and u.get("username") == "admin1" and u.get("state") == "active"
         and "password" not in u and "hash" not in u and "_id" not in u
         and {"email", "inserted_at", "updated_at", "deleted_at"} <= set(u),
         "users/: Kytos' fields, without password or hash", js)
    st, _, js, _ = k.request("POST", AUTH + "users/", {"username": "bob", "email": "bob@example.org",
                                                        "password": "B0bPassword"}, headers=H)
    t.ok(st == 201 and js == "User successfully created", "POST users/: 201", (st, js))
    st, _, js, _ = k.request("POST", AUTH + "users/", {"username": "bob", "email": "bob@example.org",
                                                        "password": "B0bPassword"}, headers=H)
    t.ok(st == 409 and js["description"] == "bob already exists.", "POST a taken username: 409", (st, js))
    st, _, js, _ = k.request("POST", AUTH + "users/", {"username": "x y", "email": "nope", "password": "weakpassword"},
                             headers=H)
    t.ok(st == 400 and js["description"] ==
         "username: String should match pattern '^[a-zA-Z0-9_-]+$'; email: value is not a valid email address: "
         "An email address must have an @-sign.; password: Value error, value should contain minimun 8 characters, "
         "at least one upper case character, at least 1 numeric character [0-9]",
         "POST invalid: 400 with pydantic's messages joined as Kytos does", js)
    st, _, js, _ = k.request("POST", AUTH + "users/", body="x", headers=dict(H, **{"Content-Type": "text/plain"}))
    t.ok(st == 415, "POST users/ not JSON: 415", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "users/bob", headers=H)
    t.ok(st == 200 and js["username"] == "bob" and js["email"] == "bob@example.org" and "password" not in js,
         "GET users/bob", js)
    st, _, js, _ = k.request("GET", AUTH + "users/nobody", headers=H)
    t.ok(st == 404 and js["description"] == "User nobody not found", "GET an unknown user: 404", js)
    bob = login(k, "bob", "B0bPassword")
    st, _, js, _ = k.request("PATCH", AUTH + "users/bob", {"email": "robert@example.org", "junk": 1}, headers=H)
    t.ok(st == 200 and js == "User successfully updated", "PATCH users/bob", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "users/bob", headers=bearer(bob))
    t.ok(st == 200 and js["email"] == "robert@example.org", "PATCH kept, bob's token still good", js)
    st, _, js, _ = k.request("PATCH", AUTH + "users/nobody", {"email": "a@b.org"}, headers=H)
    t.ok(st == 404, "PATCH an unknown user: 404", (st, js))
    st, _, js, _ = k.request("PATCH", AUTH + "users/bob", {"password": "short"}, headers=H)
    t.ok(st == 400 and js["description"] == "password: String should have at least 8 characters",
         "PATCH a bad password: 400", js)
    # revocation: a new password voids the tokens issued before
    st, _, js, _ = k.request("PATCH", AUTH + "users/bob", {"password": "N3wPassword"}, headers=H)
    st2, _, js2, _ = k.request("GET", AUTH + "users/", headers=bearer(bob))
    t.ok(st == 200 and st2 == 401 and js2["error"] == "Token not sent or expired: Token revoked",
         "a password change revokes the tokens issued before, at once", (st, js2))
    t.ok(login(k, "bob", "B0bPassword") is None and login(k, "bob", "N3wPassword"), "the new password logs in")

    # ---- roles ----
    st, _, js, _ = k.request("POST", AUTH + "users/", {"username": "vera", "email": "vera@example.org",
                                                        "password": "Vi3werPass", "role": "viewer"}, headers=H)
    vera = login(k, "vera", "Vi3werPass")
    st, _, js, _ = k.request("GET", KIT + "slow?ms=1", headers=bearer(vera))
    t.ok(st == 200, "a viewer may GET", (st, js))
    st, _, js, _ = k.request("POST", KIT + "echo", {"a": 1}, headers=bearer(vera))
    t.ok(st == 403, "a viewer may not POST", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(vera))
    t.ok(st == 403, "a viewer may not manage users, not even list them", (st, js))

    # ---- authenticate_urls on every route kind ----
    for name, path in (("pooled", KIT + "slow?ms=1"), ("deferred", KIT + "deferred?ms=1"), ("inline", KIT + "inline")):
        st, _, js, _ = k.request("GET", path)
        st2, _, js2, _ = k.request("GET", path, headers=H)
        t.ok(st == 401 and js["error"].startswith("Token not sent or expired") and st2 == 200,
             "authenticate_urls: the %s route needs a token and works with one" % name, (st, js, st2, js2))
    st, _, js, _ = k.request("POST", KIT + "echo", {"a": 1})
    t.ok(st == 401, "authenticate_urls: a POST with a body is refused before its body", (st, js))
    st, _, js, _ = k.request("GET", KIT + "whoami", headers=bearer(vera))
    t.ok(st == 200 and js == {"authenticated": True, "user": "vera", "token_id": "", "role": "viewer"},
         "a NApp reads the caller's identity and role (ABI 1.5 kytos_req_identity)", (st, js))
    st, _, _, _ = k.request("GET", "/api/kytos/hello/v1/")
    t.ok(st == 200, "another NApp's routes stay open")
    st, _, _, _ = k.request("GET", "/api/kytos/core/config/")
    t.ok(st == 200, "core routes stay open (authenticate_urls never applies to them, as Kytos)")

    # ---- machine tokens ----
    st, _, js, _ = k.request("POST", AUTH + "tokens/", {"name": "ci", "role": "viewer", "prefixes": ["/api/kytos/testkit/"]},
                             headers=H)
    mtok, mid = (js or {}).get("token"), (js or {}).get("id")
    t.ok(st == 201 and mtok and mid and js["role"] == "viewer", "POST tokens/: a machine token, shown once", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "tokens/", headers=H)
    t.ok(st == 200 and len(js["tokens"]) == 1 and "token" not in js["tokens"][0] and js["tokens"][0]["id"] == mid,
         "tokens/ lists them without their secret", js)
    st, _, _, _ = k.request("GET", KIT + "slow?ms=1", headers=bearer(mtok))
    t.ok(st == 200, "a machine token works in its prefix")
    st, _, js, _ = k.request("GET", AUTH + "users/", headers=bearer(mtok))
    t.ok(st in (403,), "a viewer machine token may not manage users", (st, js))
    st, _, js, _ = k.request("POST", AUTH + "tokens/", {"name": "other", "prefixes": ["/api/kytos/hello/"]}, headers=H)
    otok = js["token"]
    st, _, js, _ = k.request("GET", KIT + "slow?ms=1", headers=bearer(otok))
    t.ok(st == 403, "a machine token outside its prefixes: 403", (st, js))
    st, _, js, _ = k.request("DELETE", AUTH + "tokens/" + mid, headers=H)
    st2, _, js2, _ = k.request("GET", KIT + "slow?ms=1", headers=bearer(mtok))
    t.ok(st == 200 and st2 == 401 and "revoked" in js2["error"], "a revoked machine token is refused at once",
         (st, js, st2, js2))

    # ---- delete (soft) ----
    st, _, js, _ = k.request("DELETE", AUTH + "users/vera", headers=H)
    t.ok(st == 200 and js == "User vera deleted succesfully", "DELETE users/vera: Kytos' message", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "users/vera", headers=H)
    t.ok(st == 200 and js["state"] == "inactive" and js["deleted_at"], "the delete is soft: inactive, deleted_at", js)
    st, _, js, _ = k.request("GET", KIT + "slow?ms=1", headers=bearer(vera))
    t.ok(st == 401, "a deleted user's token is refused at once", (st, js))
    st, _, js, _ = k.request("GET", AUTH + "login/", headers=basic("vera", "Vi3werPass"))
    t.ok(st == 401 and js["description"] == "This user is not active", "a deleted user cannot log in", js)
    st, _, js, _ = k.request("DELETE", AUTH + "users/nobody", headers=H)
    t.ok(st == 404, "DELETE an unknown user: 404", (st, js))

    # ---- login throttling ----
    codes = [k.request("GET", AUTH + "login/", headers=basic("bob", "Wr0ngPass%d" % i))[0] for i in range(4)]
    st, hdrs, js, _ = k.request("GET", AUTH + "login/", headers=basic("bob", "N3wPassword"))
    # (bob's one failure earlier, with his old password, counts too)
    t.ok(codes[0] == 401 and codes[-1] == 429 and codes == sorted(codes) and st == 429 and int(hdrs.get("Retry-After", "0")) >= 1,
         "repeated failed logins: 429 with Retry-After, the right password too while it lasts", (codes, st, hdrs))
    t.ok(k.wait_for(lambda: login(k, "bob", "N3wPassword") is not None, 8),
         "the wait ends: the right password logs in again")

    # ---- the token survives a restart (the secret is kept) ----
    k.stop()
    k = Kytosd(reuse=k, napps=[], settings={"authenticate_urls": ["kytos/testkit"]})
    st, _, js, _ = k.request("GET", AUTH + "users/", headers=H)
    t.ok(st == 200, "a token still works after a restart", (st, js))
finally:
    k.stop()
    k.cleanup()

# ---- api_auth_all and the audit trail ----
k = Kytosd(napps=["hello.so"], settings={"api_auth_all": True, "api_audit": True})
try:
    audit = os.path.join(k.dir, "audit.log")
    k.stop()
    create_user_cli(k, ["root", "root@example.org", "R00tPassword", "R00tPassword"])
    k = Kytosd(reuse=k, settings={"api_auth_all": True, "api_audit_file": audit})
    for path in ("/api/kytos/core/config/", "/api/kytos/core/napps_enabled", "/api/kytos/hello/v1/",
                 "/api/kytos/core/dead_letter/"):
        st, _, js, _ = k.request("GET", path)
        t.ok(st == 401, "api_auth_all: %s needs a token" % path, (st, js))
    st, _, js, _ = k.request("GET", "/api/kytos/core/status/")
    t.ok(st == 200 and js["auth"]["all"] is True, "api_auth_all: status/ stays open and says so", st)
    st, _, js, _ = k.request("GET", AUTH + "login/")
    t.ok(st == 400, "api_auth_all: login/ stays open", (st, js))
    tok = login(k, "root", "R00tPassword")
    st, _, _, _ = k.request("GET", "/api/kytos/core/config/", headers=bearer(tok))
    t.ok(st == 200, "api_auth_all: a token opens the core's routes")
    k.request("POST", AUTH + "users/", {"username": "carol", "email": "c@example.org", "password": "Car0lPassw"},
              headers=bearer(tok))
    k.request("DELETE", AUTH + "users/carol", headers=bearer(tok))
    k.request("POST", AUTH + "users/", {"username": "dan"}, headers={"Authorization": "Bearer nope"})
    text = open(audit).read() if os.path.exists(audit) else ""
    lines = [ln for ln in text.splitlines() if ln]
    t.ok(len(lines) == 3 and "user=root" in lines[0] and "method=POST" in lines[0] and "status=201" in lines[0]
         and "client=127.0.0.1" in lines[0] and "port=" in lines[0] and "duration_ms=" in lines[0]
         and "method=DELETE" in lines[1] and "status=401" in lines[2] and "user=-" in lines[2],
         "audit: one line per state-changing request: user, client, port, method, path, status, duration", text)
    t.ok(tok not in text and "Car0lPassw" not in text and "nope" not in text,
         "audit: never the token or the password", text)
finally:
    k.stop()
    k.cleanup()

sys.exit(t.done())
