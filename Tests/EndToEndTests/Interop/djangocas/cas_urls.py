"""The CAS server's URLs, as its README's quick start has them: the protocol under /cas/."""
from django.urls import include, path

urlpatterns = [path("cas/", include("cas_server.urls", namespace="cas_server"))]
