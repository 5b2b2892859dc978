"""prlab's standalone JupyterLab 3.6.8: the front end built by webpack.config.js,
served by Debian 12's jupyterlab_server (python3-jupyterlab-server 2.16) on
jupyter_server 1.23 (python3-jupyter-server), as in JupyterLab's own
examples/app. No other server extension is loaded, and no Jupyter config
file on disk applies (JUPYTER_NO_CONFIG).

    /usr/bin/python3 tools/jlab/main.py --ServerApp.ip=127.0.0.1 --ServerApp.port=PORT \
        --ServerApp.token=TOKEN --ServerApp.root_dir=CHECKOUT --ServerApp.open_browser=False

PRLAB_JLAB_BUILD: the build folder (default <checkout>/build/jlab, written by
`make jlab`); PRLAB_JLAB_STATE: where user settings and workspaces go
(default <build>-state).
"""

import json
import os
import sys

os.environ["JUPYTER_NO_CONFIG"] = "1"

from jupyterlab_server import LabServerApp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.abspath(os.environ.get("PRLAB_JLAB_BUILD") or os.path.join(HERE, "..", "..", "build", "jlab"))
STATE = os.path.abspath(os.environ.get("PRLAB_JLAB_STATE") or BUILD + "-state")

with open(os.path.join(HERE, "package.json")) as f:
    VERSION = json.load(f)["version"]


def _jupyter_server_extension_points():
    return [{"module": __name__, "app": PrlabLab}]


class PrlabLab(LabServerApp):
    name = __name__
    extension_url = "/lab"
    default_url = "/lab"
    load_other_extensions = False
    app_name = "JupyterLab (prlab test build)"
    app_version = VERSION
    # overrides.json: settings that differ from JupyterLab's defaults.
    app_settings_dir = os.path.join(HERE, "settings")
    static_dir = BUILD
    schemas_dir = os.path.join(BUILD, "schemas")
    themes_dir = os.path.join(BUILD, "themes")
    templates_dir = os.path.join(HERE, "templates")
    user_settings_dir = os.path.join(STATE, "user_settings")
    workspaces_dir = os.path.join(STATE, "workspaces")

    def initialize_settings(self):
        super().initialize_settings()
        self.serverapp.web_app.settings["terminals_available"] = False


if __name__ == "__main__":
    if not os.path.exists(os.path.join(BUILD, "bundle.js")):
        sys.exit(f"{BUILD}/bundle.js is missing: build the front end first (make jlab)")
    PrlabLab.launch_instance()
