// prlab's standalone JupyterLab 3.6.8 front end: the extensions a user needs
// to open a notebook, run it with a kernel and see its outputs (package.json's
// jupyterlab.extensions names the same list; webpack.config.js copies their
// schemas and themes). The application object is window.jupyterapp, as in
// JupyterLab's own UI tests, so that the browser test can read kernel and
// cell state; the test drives the notebook through the menus.
import { JupyterLab } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';

// Before any asset loads: where the server serves this bundle's files.
// eslint-disable-next-line no-undef
__webpack_public_path__ = PageConfig.getOption('fullStaticUrl') + '/';

const styles = import('prlab-jlab-style');

const extensions = [
  import('@jupyterlab/application-extension'),
  import('@jupyterlab/apputils-extension'),
  import('@jupyterlab/codemirror-extension'),
  import('@jupyterlab/docmanager-extension'),
  import('@jupyterlab/filebrowser-extension'),
  import('@jupyterlab/mainmenu-extension'),
  import('@jupyterlab/notebook-extension'),
  import('@jupyterlab/rendermime-extension'),
  import('@jupyterlab/theme-light-extension'),
  import('@jupyterlab/translation-extension'),
  import('@jupyterlab/ui-components-extension')
];

window.addEventListener('load', async () => {
  await styles;
  const lab = new JupyterLab();
  lab.registerPluginModules(await Promise.all(extensions));
  window.jupyterapp = lab;
  await lab.start();
  await lab.restored;
  document.body.dataset.prlabRestored = 'true';
});
