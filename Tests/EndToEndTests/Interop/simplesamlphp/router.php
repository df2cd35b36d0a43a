<?php
// Router for `php -S` (Scripts/interop-simplesamlphp.sh): one server, two SimpleSAMLphp instances.
//
//   /simplesaml/...    SimpleSAMLphp as the identity provider (role "idp")
//   /portal/saml/...   SimpleSAMLphp as the portal's service provider (role "sp")
//   /portal/...        the portal itself (portal.php), protected by the "sp" instance
//
// Both instances read the same configuration directory (SIMPLESAMLPHP_CONFIG_DIR); config.php
// picks base URL, cookie names and session directory by UNITOOL_SSP_ROLE, set here per request,
// so the IdP's session and the SP's session are separate cookies, as on two real hosts.

declare(strict_types=1);

$sspRoot = rtrim(getenv('UNITOOL_SSP_ROOT') ?: '/usr/share/simplesamlphp', '/');
$www = $sspRoot . '/www';
$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH) ?? '/');

function unitool_role(string $role): void
{
    putenv('UNITOOL_SSP_ROLE=' . $role);
    $_SERVER['UNITOOL_SSP_ROLE'] = $role;
    $_ENV['UNITOOL_SSP_ROLE'] = $role;
}

function unitool_not_found(): void
{
    http_response_code(404);
    header('Content-Type: text/html; charset=utf-8');
    echo "<!DOCTYPE html>\n<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>\n";
}

// Runs a script of SimpleSAMLphp's www/ directory as a web server would: the first path segment
// that names a .php file is the script, the rest is PATH_INFO. Other files are served as they are.
function unitool_simplesaml(string $www, string $prefix, string $rest): void
{
    if (strpos($rest, "\0") !== false || preg_match('#(^|/)\.\.(/|$)#', $rest)) {
        unitool_not_found();
        return;
    }
    $segments = $rest === '' ? [] : explode('/', $rest);
    $script = '';
    $pathInfo = '';
    for ($i = 0; $i < count($segments); $i++) {
        $candidate = implode('/', array_slice($segments, 0, $i + 1));
        if (substr($candidate, -4) === '.php' && is_file($www . '/' . $candidate)) {
            $script = $candidate;
            $tail = array_slice($segments, $i + 1);
            $pathInfo = count($tail) > 0 ? '/' . implode('/', $tail) : '';
            break;
        }
    }
    if ($script === '') {
        $file = $www . ($rest === '' ? '' : '/' . $rest);
        if (is_dir($file)) {
            if (is_file(rtrim($file, '/') . '/index.php')) {
                $script = ltrim(rtrim($rest, '/') . '/index.php', '/');
            } else {
                unitool_not_found();
                return;
            }
        } elseif (is_file($file)) {
            $types = [
                'css' => 'text/css', 'js' => 'application/javascript', 'png' => 'image/png',
                'gif' => 'image/gif', 'jpg' => 'image/jpeg', 'svg' => 'image/svg+xml',
                'ico' => 'image/x-icon', 'woff' => 'font/woff', 'woff2' => 'font/woff2',
                'ttf' => 'font/ttf', 'html' => 'text/html', 'txt' => 'text/plain',
            ];
            $ext = strtolower(pathinfo($file, PATHINFO_EXTENSION));
            header('Content-Type: ' . ($types[$ext] ?? 'application/octet-stream'));
            header('Content-Length: ' . filesize($file));
            readfile($file);
            return;
        } else {
            unitool_not_found();
            return;
        }
    }
    $filename = $www . '/' . $script;
    $_SERVER['SCRIPT_FILENAME'] = $filename;
    $_SERVER['SCRIPT_NAME'] = $prefix . $script;
    $_SERVER['PHP_SELF'] = $prefix . $script . $pathInfo;
    if ($pathInfo !== '') {
        $_SERVER['PATH_INFO'] = $pathInfo;
    } else {
        unset($_SERVER['PATH_INFO']);
    }
    chdir(dirname($filename));
    require $filename;
}

if (strncmp($path, '/simplesaml/', 12) === 0 || $path === '/simplesaml') {
    unitool_role('idp');
    unitool_simplesaml($www, '/simplesaml/', (string)substr($path, 12));
} elseif (strncmp($path, '/portal/saml/', 13) === 0 || $path === '/portal/saml') {
    unitool_role('sp');
    unitool_simplesaml($www, '/portal/saml/', (string)substr($path, 13));
} elseif (strncmp($path, '/portal/', 8) === 0 || $path === '/portal') {
    unitool_role('sp');
    $_SERVER['SCRIPT_FILENAME'] = __DIR__ . '/portal.php';
    $_SERVER['SCRIPT_NAME'] = '/portal/';
    $_SERVER['PHP_SELF'] = '/portal/';
    require __DIR__ . '/portal.php';
} elseif ($path === '/') {
    header('Location: /portal/', true, 302);
} else {
    unitool_not_found();
}
