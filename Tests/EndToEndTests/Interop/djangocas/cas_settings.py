"""Django settings of the django-cas-server peer (Scripts/interop-djangocas.sh).

The product as shipped: cas_server's own templates, its default authentication class (Django's
users, cas_server.auth.DjangoAuthUser), its URLs under /cas/. Only what a deployment must set is
set: where its files are (UNITOOL_DJANGOCAS_DIR), its secret, its host, and no check for a new
version (which would ask PyPI on every page).
"""
import os
from pathlib import Path

STATE = Path(os.environ["UNITOOL_DJANGOCAS_DIR"])

SECRET_KEY = (STATE / "secret-key").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "cas_urls"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "cas_server",
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
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(STATE / "cas.sqlite3")}}
STATIC_URL = "/static/"
# Two servers on one host: each its own cookie names, as on two hosts.
SESSION_COOKIE_NAME = "cassessionid"
CSRF_COOKIE_NAME = "cascsrftoken"

CAS_AUTH_CLASS = "cas_server.auth.DjangoAuthUser"
CAS_NEW_VERSION_HTML_WARNING = False
CAS_NEW_VERSION_EMAIL_WARNING = False
