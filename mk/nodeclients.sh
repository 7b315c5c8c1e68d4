#!/usr/bin/env bash
# Installs nats.js (@nats-io/transport-node from npm, a third-party NATS client) into DIR for the streaming tests
# that check rfstream's NATS conventions with it (TestNatsJS*). Nothing to do when it is there already; offline,
# npm takes it from its cache (--prefer-offline). Without node the tests skip; without the package they fail
# naming this script: a failed install is reported here and by them, and the other tests still run.
set -u
dir=${1:?usage: mk/nodeclients.sh DIR}
pkg=@nats-io/transport-node
version=3.4.0
[ -f "$dir/node_modules/$pkg/package.json" ] && exit 0
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "nodeclients: no node/npm here: the nats.js tests will skip (apt-get install nodejs npm)"
  exit 0
fi
mkdir -p "$dir"
if ! npm install --prefix "$dir" --no-audit --no-fund --prefer-offline --no-save "$pkg@$version" >"$dir/npm.log" 2>&1; then
  echo "nodeclients: npm could not install $pkg@$version into $dir (offline with an empty npm cache?); see $dir/npm.log"
  exit 0
fi
echo "nodeclients: $pkg@$version installed in $dir"
