"""A desktop-notification server on the session bus (org.freedesktop.Notifications, as a
desktop's notification daemon provides it), for the watch tests: each Notify call becomes one
JSON line of RECEIVED. READY is written once the bus name is owned.

Runs on Debian's python3 with python3-dbus and python3-gi. Usage: notification_listener.py READY RECEIVED
"""
import json
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ready, received = sys.argv[1], sys.argv[2]
INTERFACE = "org.freedesktop.Notifications"


class Notifications(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.next_id = 0

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.next_id += 1
        with open(received, "a", encoding="utf-8") as output:
            output.write(json.dumps({"app": str(app_name), "summary": str(summary), "body": str(body)}) + "\n")
        return dbus.UInt32(self.next_id)

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body"]

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("test-listener", "unitool", "1", "1.2")


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)
service = Notifications(bus)
with open(ready + ".tmp", "w") as marker:
    marker.write("ready")
os.rename(ready + ".tmp", ready)
GLib.MainLoop().run()
