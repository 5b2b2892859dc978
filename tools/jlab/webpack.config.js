// Builds prlab's standalone JupyterLab 3.6.8 front end (see README.md here)
// into $PRLAB_JLAB_OUT (default <checkout>/build/jlab, git-ignored):
// bundle.js, the extensions' setting schemas (schemas/) and the light theme
// (themes/), which main.py serves through jupyterlab_server.
// Same recipe as JupyterLab's own examples/app: @jupyterlab/builder's
// ensureAssets copies the schemas and themes and writes style.js (the
// extensions' CSS imports), and one webpack bundle holds the rest.
const path = require('path');
const crypto = require('crypto');
const webpack = require('webpack');
const { Build } = require('@jupyterlab/builder');
const pkg = require('./package.json');

const out = path.resolve(
  process.env.PRLAB_JLAB_OUT || path.join(__dirname, '..', '..', 'build', 'jlab')
);

// Some loaders of webpack 5.x ask for md4, which OpenSSL 3 (Node 17+) lacks.
const createHash = crypto.createHash;
crypto.createHash = alg => createHash(alg === 'md4' ? 'sha256' : alg);

// The themes' configs, quiet like the bundle's (errors and warnings only).
const assets = Build.ensureAssets({
  packageNames: pkg.jupyterlab.extensions,
  output: out
}).map(c => Object.assign(c, { stats: 'errors-warnings' }));

module.exports = [
  {
    entry: './index.js',
    output: { path: out, filename: 'bundle.js', hashFunction: 'sha256' },
    bail: true,
    stats: 'errors-warnings',
    // development: no minifier pass (the slow part on a 2-core machine);
    // the bundle is only served on 127.0.0.1 to the test's browser.
    mode: 'development',
    devtool: false,
    resolve: {
      // style.js is generated in the output folder; its imports resolve here.
      modules: [path.join(__dirname, 'node_modules'), 'node_modules'],
      alias: { 'prlab-jlab-style': path.join(out, 'style.js') },
      fallback: { path: require.resolve('path-browserify') }
    },
    module: {
      rules: [
        { test: /\.css$/, use: ['style-loader', 'css-loader'] },
        { test: /\.(html|md)$/, type: 'asset/source' },
        { test: /\.(jpg|png|gif|eot|ttf|woff2?)(\?v=\d+\.\d+\.\d+)?$/, type: 'asset/inline' },
        // In CSS an svg is a data URI; imported from JavaScript it is the raw markup.
        { test: /\.svg(\?v=\d+\.\d+\.\d+)?$/, issuer: /\.css$/, type: 'asset/inline' },
        { test: /\.svg(\?v=\d+\.\d+\.\d+)?$/, issuer: /\.js$/, type: 'asset/source' }
      ]
    },
    plugins: [
      new webpack.DefinePlugin({
        'process.env': '{}',
        process: { cwd: () => '/' }
      })
    ]
  }
].concat(assets);
