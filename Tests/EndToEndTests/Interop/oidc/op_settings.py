"""Django settings of the OpenID Connect provider peer (Scripts/interop-oidc.sh):
django-oidc-provider 0.9.0 (PyPI), unmodified, with Django's users.

The product as shipped: oidc_provider's views and templates under /openid/ (discovery, authorize,
token, userinfo, jwks, end-session), Django's own login view (django.contrib.auth.views.LoginView)
rendering the login template Django's admin ships (admin/login.html: form#login-form, p.errornote),
as a Django site that has no login template of its own signs in. Only what a deployment must set
is set: where its files are (UNITOOL_OIDC_DIR), its secret, its host, its issuer address, and the
`sub` claim (the user name, so that the portal can show who signed in).

What django-oidc-provider 0.9.0 does and does not do, read in its source
(oidc_provider/views.py AuthorizeView.get, lib/endpoints/authorize.py): `prompt=login` logs the
user out of the OP and sends them to the login page again; `max_age` does the same when the last
login is older; `response_mode` is not read at all, so every answer is a redirect with the code
in the query (no form_post).
"""
import os
from pathlib import Path

STATE = Path(os.environ["UNITOOL_OIDC_DIR"])

SECRET_KEY = (STATE / "secret-key").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "op_urls"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
SITE_URL = os.environ["UNITOOL_OIDC_SITE_URL"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "oidc_provider",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(STATE / "op.sqlite3")}}
STATIC_URL = "/static/"
LOGIN_URL = "/accounts/login/"
# Two servers on one host: each its own cookie names, as on two hosts.
SESSION_COOKIE_NAME = "opsessionid"
CSRF_COOKIE_NAME = "opcsrftoken"

OIDC_IDTOKEN_SUB_GENERATOR = "op_urls.username_sub"
