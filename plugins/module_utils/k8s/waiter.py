# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waiting on the API server: a waiter that watches, and the options of the waits the action
plugins drive in slices.

``wait_for`` lists the objects once, then follows a watch from that resourceVersion until a
predicate holds for every named object or the time runs out. A watch request lasts at most
``WATCH_SECONDS``, so a wait makes one list plus about one watch request a minute, however
often the objects change. A 410 Gone (the version is too old) re-lists. A watch whose connection
drops (an API server restarting, a proxy closing idle streams) lists again and follows on, trying
every few seconds while the API server cannot be reached, until the wait's own deadline. In check
mode the modules never call it: they report the state as it is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import CONNECTION_ERRORS, ApiException, ApiUnreachable

WATCH_SECONDS = 60
RECONNECT_PAUSE = 2

# The bounds of the sliced-wait options (sliced_wait_spec), for the modules' ModuleSpec.
SLICED_WAIT_BOUNDS = dict(wait_timeout=(1, None, "seconds"), progress_interval=(1, None, "seconds"))


def sliced_wait_spec(wait_timeout):
    """The options the sliced-wait action plugins drive (plugin_utils/sliced_wait.py), as the doc
    fragment fluidops.accel.sliced_wait documents them; each module has its own default wait."""
    return dict(wait=dict(type="bool", default=True), wait_timeout=dict(type="int", default=wait_timeout),
                fail_on_timeout=dict(type="bool", default=True), progress_interval=dict(type="int", default=30))


def timed_out_after(seconds):
    """The start of the message of a wait that ran out; the sliced-wait action plugins put the
    whole wait in place of the last slice's."""
    return "Timed out after %ss" % seconds


def wait_for(client, kind, namespace, names, done, seconds, api_version, listed=None):
    """Watch the named objects of ``kind`` in ``namespace`` until ``done(obj)`` holds for all of
    them. ``listed`` is a list the caller already made, (items, resourceVersion), to start from.
    Returns ({name: object dict or None}, True when done, False when the time ran out)."""
    deadline = client.clock() + seconds
    wanted = set(names)
    current = {}

    def relist(listed=None):
        items, version = listed or client.list(kind, namespace, api_version=api_version)
        current.clear()
        current.update({item["metadata"]["name"]: item for item in items if item["metadata"]["name"] in wanted})
        return version

    def finished():
        return all(name in current and done(current[name]) for name in wanted)

    def reconnect(error):
        # The stream ended with an error: list again (events may have been missed meanwhile).
        while True:
            client.reconnects += 1
            try:
                return relist()
            except Exception as again:
                if not isinstance(again, CONNECTION_ERRORS):
                    raise
                error = again
            if client.clock() >= deadline:
                raise ApiUnreachable("lost the watch on %s in %s and could not reach the API server again before the wait "
                                     "ended (%d attempts): %s" % (kind, namespace, client.reconnects, error))
            client.pause(max(0, min(RECONNECT_PAUSE, deadline - client.clock())))

    version = relist(listed)
    while not finished():
        remaining = deadline - client.clock()
        if remaining <= 0:
            break
        try:
            for event_type, obj in client.watch(kind, namespace, version, max(1, int(min(remaining, WATCH_SECONDS))),
                                                api_version=api_version):
                version = (obj.get("metadata") or {}).get("resourceVersion") or version
                name = (obj.get("metadata") or {}).get("name")
                if event_type == "ERROR":
                    raise ApiException(status=obj.get("code"), reason=obj.get("message"))
                if name in wanted:
                    if event_type == "DELETED":
                        current.pop(name, None)
                    else:
                        current[name] = obj
                if finished() or client.clock() >= deadline:
                    break
        except ApiException as error:
            if getattr(error, "status", None) != 410:
                raise
            version = relist()
        except Exception as error:
            if not isinstance(error, CONNECTION_ERRORS):
                raise
            version = reconnect(error)
    return {name: current.get(name) for name in names}, finished()
