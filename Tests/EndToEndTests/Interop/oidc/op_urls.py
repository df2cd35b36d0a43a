"""The OpenID Connect provider's URLs, as django-oidc-provider's README has them (the protocol
under /openid/), Django's own login view at LOGIN_URL with the admin's login template, and the
admin (whose URLs that template links to)."""
from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path


def username_sub(user):
    """OIDC_IDTOKEN_SUB_GENERATOR: the `sub` claim is the user name."""
    return user.username


urlpatterns = [
    path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
    path(
        "accounts/login/",
        LoginView.as_view(
            template_name="admin/login.html",
            extra_context={"site_header": "University Sign-On", "site_title": "University Sign-On"},
        ),
        name="login",
    ),
    path("admin/", admin.site.urls),
]
