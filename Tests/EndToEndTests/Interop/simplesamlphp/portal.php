<?php
// The interop portal: a small service provider protected by SimpleSAMLphp's 'default-sp'.
// Served by router.php under /portal/ (see Scripts/interop-simplesamlphp.sh).
//
//   /portal/            grades, after a SAML login (SP-initiated, HTTP-Redirect to the IdP)
//   /portal/api/terms   public JSON: the current version of the terms of use
//   /portal/terms       public HTML: the terms of use
//   /portal/logout      ends the portal's (SP's) session only; the IdP session stays

declare(strict_types=1);

$sspRoot = rtrim(getenv('UNITOOL_SSP_ROOT') ?: '/usr/share/simplesamlphp', '/');
$path = parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH) ?? '/';

function portal_h(string $s): string
{
    return htmlspecialchars($s, ENT_QUOTES | ENT_HTML5, 'UTF-8');
}

function portal_page(string $title, string $body, int $status = 200): void
{
    http_response_code($status);
    header('Content-Type: text/html; charset=utf-8');
    header('Cache-Control: no-store');
    echo "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>" . portal_h($title)
        . "</title></head>\n<body>\n" . $body . "</body>\n</html>\n";
}

switch ($path) {
    case '/portal/api/terms':
        header('Content-Type: application/json');
        header('Cache-Control: no-store');
        echo json_encode(['version' => '2026-10', 'url' => '/portal/terms'], JSON_UNESCAPED_SLASHES), "\n";
        return;

    case '/portal/terms':
        portal_page('Terms of use', "<main id=\"terms\">\n<h1>Terms of use</h1>\n"
            . "<p>Version 2026-10. Use the interop portal for testing only.</p>\n</main>\n");
        return;

    case '/portal/logout':
        require_once $sspRoot . '/lib/_autoload.php';
        $session = \SimpleSAML\Session::getSessionFromRequest();
        if ($session->isValid('default-sp')) {
            // Local logout: forget the SP's login without a SAML LogoutRequest to the IdP.
            $session->doLogout('default-sp');
        }
        portal_page('Signed out', "<main>\n<h1>Signed out</h1>\n"
            . "<p id=\"signed-out\">You have left the portal.</p>\n"
            . "<p><a id=\"login\" href=\"/portal/\">Back to the portal</a></p>\n</main>\n");
        return;

    case '/portal':
    case '/portal/':
    case '/portal/grades':
        require_once $sspRoot . '/lib/_autoload.php';
        $auth = new \SimpleSAML\Auth\Simple('default-sp');
        $auth->requireAuth();
        $attributes = $auth->getAttributes();
        $uid = (string)($attributes['uid'][0] ?? '');
        $name = (string)($attributes['displayName'][0] ?? $uid);
        $grades = [
            ['Linear Algebra I', 'MATH-101', 'A'],
            ['Introduction to Programming', 'CS-110', 'B+'],
            ['Japanese Literature (日本文学)', 'JPN-210', 'A-'],
        ];
        $rows = '';
        foreach ($grades as [$course, $code, $grade]) {
            $rows .= '<tr><td class="course">' . portal_h($course) . '</td><td class="code">' . portal_h($code)
                . '</td><td class="grade">' . portal_h($grade) . "</td></tr>\n";
        }
        portal_page('Grades', "<header>\n<p>Signed in as <span id=\"uid\">" . portal_h($uid) . '</span> ('
            . portal_h($name) . ")</p>\n<p><a id=\"logout\" href=\"/portal/logout\">Sign out</a></p>\n</header>\n"
            . "<main>\n<h1>Grades</h1>\n<table id=\"grades\">\n<thead><tr><th>Course</th><th>Code</th><th>Grade</th></tr></thead>\n"
            . "<tbody>\n" . $rows . "</tbody>\n</table>\n</main>\n");
        return;

    default:
        portal_page('Not found', "<h1>Not found</h1>\n", 404);
        return;
}
