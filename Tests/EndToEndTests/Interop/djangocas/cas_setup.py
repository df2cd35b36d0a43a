"""Sets up the django-cas-server peer's database after `migrate`: the users and the one service
pattern (the portal's address) that the CAS server lets tickets go to. Safe to run again.

The pattern leaves out the portal's /unregistered/ addresses: they stand for a service nobody
registered with the CAS server, which it refuses a ticket ("Service … not allowed"). A second
pattern, tried first, lets only mlee into the portal's /staff/ addresses (restrict_users): a
service open to some users, which refuses the others a ticket after their password.

    UNITOOL_DJANGOCAS_DIR=DIR DJANGO_SETTINGS_MODULE=cas_settings python cas_setup.py PORTAL_URL
"""
import re
import sys

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from cas_server.models import ServicePattern, Username  # noqa: E402

USERS = {"jdoe": "cas-pass-2026", "mlee": "other-pass-2026"}

for name, password in USERS.items():
    user, _ = User.objects.get_or_create(username=name)
    user.set_password(password)
    user.save()

portal = sys.argv[1].rstrip("/")
ServicePattern.objects.all().delete()
staff = ServicePattern.objects.create(pos=1, name="staff", pattern="^" + re.escape(portal) + "/staff/.*$", restrict_users=True)
Username.objects.create(value="mlee", service_pattern=staff)
ServicePattern.objects.create(pos=2, name="portal", pattern="^" + re.escape(portal) + "/(?!unregistered/).*$")
