"""Sets up the OpenID Connect provider peer's database after `migrate`: the users, the OP's
signing key (django-oidc-provider's own `creatersakey`) and the one client, the portal, with its
redirect address. Safe to run again.

    UNITOOL_OIDC_DIR=DIR DJANGO_SETTINGS_MODULE=op_settings python op_setup.py PORTAL_URL CLIENT_SECRET
"""
import sys

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oidc_provider.models import Client, ResponseType, RSAKey  # noqa: E402

USERS = {"jdoe": "oidc-pass-2026", "mlee": "other-pass-2026"}

for name, password in USERS.items():
    user, _ = User.objects.get_or_create(username=name)
    user.set_password(password)
    user.save()

if not RSAKey.objects.exists():
    call_command("creatersakey")

portal = sys.argv[1].rstrip("/")
Client.objects.filter(client_id="portal").delete()
client = Client.objects.create(
    name="Campus Portal",
    client_type="confidential",
    client_id="portal",
    client_secret=sys.argv[2],
    jwt_alg="RS256",
    require_consent=False,
    reuse_consent=True,
)
client.redirect_uris = [portal + "/auth/callback"]
client.save()
client.response_types.add(ResponseType.objects.get(value="code"))
