#!/usr/bin/perl
# The portal behind the Shibboleth SP (Scripts/interop-lemonldap.sh): Apache runs this CGI for
# every path under /portal, all of them behind `AuthType shibboleth` + `Require valid-user`, so
# mod_shib hands it the SAML attributes released by LemonLDAP::NG as environment variables
# (uid, cn, mail; REMOTE_USER is uid).
#
#   /portal/             a welcome page with the user's name
#   /portal/grades       a table of the user's grades
#   /portal/terms        the terms, as a page
#   /portal/api/terms    {"version":"2026-04","url":"/portal/terms"}, JSON behind the login
use strict;
use warnings;

my $path = $ENV{PATH_INFO} // '';
$path = '/' if $path eq '';
my $uid  = $ENV{uid}  // $ENV{REMOTE_USER} // '';
my $cn   = $ENV{cn}   // $uid;
my $mail = $ENV{mail} // '';

sub esc {
    my ($s) = @_;
    $s //= '';
    $s =~ s/&/&amp;/g;
    $s =~ s/</&lt;/g;
    $s =~ s/>/&gt;/g;
    $s =~ s/"/&quot;/g;
    $s =~ s/'/&#39;/g;
    return $s;
}

sub page {
    my ( $title, $body ) = @_;
    my $who = esc($cn);
    print "Content-Type: text/html; charset=utf-8\r\n";
    print "Cache-Control: no-store\r\n\r\n";
    print <<"HTML";
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>@{[esc($title)]} - Interop University Portal</title></head>
<body>
<header>
<h1>Interop University Portal</h1>
<p class="user">Signed in as <span id="user-name">$who</span> (<span id="user-id">@{[esc($uid)]}</span>, <span id="user-mail">@{[esc($mail)]}</span>)</p>
<nav><a href="/portal/">Home</a> | <a href="/portal/grades">Grades</a> | <a href="/portal/terms">Terms</a> | <a href="/Shibboleth.sso/Logout?return=/">Sign out of the portal</a></nav>
</header>
<main>
<h2>@{[esc($title)]}</h2>
$body
</main>
</body>
</html>
HTML
    exit 0;
}

my %grades = (
    dwho => [
        [ 'TIME-101', 'Temporal Mechanics I', 'Spring 2026', 4, 'A' ],
        [ 'TIME-202', 'Paradox Resolution',   'Spring 2026', 2, 'A-' ],
        [ 'HIST-150', 'Earth History Survey',  'Fall 2025',   3, 'B+' ],
    ],
    rtyler => [
        [ 'COMM-110', 'Public Speaking',          'Spring 2026', 2, 'A' ],
        [ 'XENO-120', 'Introduction to Xenology', 'Spring 2026', 4, 'B' ],
        [ 'MATH-101', 'Calculus I',               'Fall 2025',   4, 'C+' ],
    ],
    msmith => [
        [ 'CS-101',   'Programming Basics',  'Spring 2026', 4, 'B+' ],
        [ 'CS-210',   'Computer Networks',   'Spring 2026', 3, 'A-' ],
    ],
);

if ( $path eq '/' || $path eq '/index.html' ) {
    page( 'Home', "<p>Welcome, <strong>" . esc($cn) . "</strong>.</p>\n"
          . "<ul><li><a href=\"/portal/grades\">Your grades</a></li>"
          . "<li><a href=\"/portal/api/terms\">Terms (API)</a></li></ul>" );
}
elsif ( $path eq '/grades' ) {
    my $rows = '';
    for my $g ( @{ $grades{$uid} || [] } ) {
        $rows .= '<tr>' . join( '', map { '<td>' . esc($_) . '</td>' } @$g ) . "</tr>\n";
    }
    $rows ||= "<tr><td colspan=\"5\">No grades yet.</td></tr>\n";
    page( 'Grades', <<"HTML" );
<table id="grades" class="grades">
<thead><tr><th>Code</th><th>Course</th><th>Term</th><th>Credits</th><th>Grade</th></tr></thead>
<tbody>
$rows</tbody>
</table>
HTML
}
elsif ( $path eq '/terms' ) {
    page( 'Terms of use', "<p id=\"terms-version\">Version 2026-04.</p>\n"
          . "<p>Use the portal for your own studies only.</p>" );
}
elsif ( $path eq '/api/terms' ) {
    print "Content-Type: application/json\r\nCache-Control: no-store\r\n\r\n";
    print "{\"version\":\"2026-04\",\"url\":\"/portal/terms\"}\n";
}
else {
    print "Status: 404 Not Found\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
    print "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>\n";
}
