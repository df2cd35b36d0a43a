# The LemonLDAP::NG portal (Debian's liblemonldap-ng-portal-perl 2.16) as a PSGI app for Starman
# (Scripts/interop-lemonldap.sh). The same app as Debian's
# /usr/share/lemonldap-ng/portal/htdocs/index.psgi, plus the files that LLNG leaves to the front
# web server: its own (/static/...) and Debian's JavaScript libraries (/javascript/..., from
# libjs-bootstrap4, libjs-jquery and the like, which the pages link to). The configuration is the ini file named by
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
    enable 'Static',
      path => qr{^/javascript/},
      root => '/usr/share/';
    $portal;
};
