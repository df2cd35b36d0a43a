# The LemonLDAP::NG portal (Debian's liblemonldap-ng-portal-perl 2.16) as a PSGI app for Starman
# (Scripts/interop-lemonldap.sh). The same app as Debian's
# /usr/share/lemonldap-ng/portal/htdocs/index.psgi, plus the portal's static files (/static/...),
# which LLNG leaves to the front web server. The configuration is the ini file named by
# LLNG_DEFAULTCONFFILE, never /etc/lemonldap-ng/lemonldap-ng.ini.
use strict;
use warnings;
use Plack::Builder;
use Lemonldap::NG::Portal::Main;

die "LLNG_DEFAULTCONFFILE is not set\n" unless $ENV{LLNG_DEFAULTCONFFILE};

my $portal = Lemonldap::NG::Portal::Main->run( {} );

builder {
    enable 'Static',
      path => qr{^/static/},
      root => '/usr/share/lemonldap-ng/portal/htdocs/';
    $portal;
};
