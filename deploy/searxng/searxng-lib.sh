# Shared by start-searxng, stop-searxng, pull-searxng and start-searxng-source.
# Sourced, never run; defines functions only.

searxng_die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# The pinned image: sets SEARXNG_IMAGE_REPOSITORY and SEARXNG_IMAGE_DIGEST from
# searxng-image.env beside this file (values only, never executed); a digest already in
# the environment wins. Dies unless the digest is sha256:<64 hex>.
searxng_image_pin() {
  local env_file
  env_file="$(dirname "${BASH_SOURCE[0]}")/searxng-image.env"
  SEARXNG_IMAGE_REPOSITORY="$(sed -n 's/^SEARXNG_IMAGE_REPOSITORY=//p' "$env_file" | tail -n 1)"
  SEARXNG_IMAGE_DIGEST="${SEARXNG_IMAGE_DIGEST:-$(sed -n 's/^SEARXNG_IMAGE_DIGEST=//p' "$env_file" | tail -n 1)}"
  [[ -n "$SEARXNG_IMAGE_REPOSITORY" ]] || searxng_die "SEARXNG_IMAGE_REPOSITORY is not set in $env_file"
  [[ "$SEARXNG_IMAGE_DIGEST" =~ ^sha256:[0-9a-f]{64}$ ]] ||
    searxng_die "the SearXNG image is not pinned: set SEARXNG_IMAGE_DIGEST=sha256:<64 hex> in $env_file (see the comment there)"
  export SEARXNG_IMAGE_REPOSITORY SEARXNG_IMAGE_DIGEST
}

# The state directory: $SEARXNG_STATE_DIR, else the one systemd made for the unit
# ($STATE_DIRECTORY), else /var/lib/sovereign-searxng.
searxng_state_dir() {
  echo "${SEARXNG_STATE_DIR:-${STATE_DIRECTORY:-/var/lib/sovereign-searxng}}"
}

# The secret: exports SEARXNG_SECRET from <state dir>/secret.env, generating it once
# (32 random bytes as hex, written to a temporary file beside it, mode 0600, renamed).
# Dies if the file holds anything else.
searxng_secret() {
  local state_dir secret_file tmp secret
  state_dir="$(searxng_state_dir)"
  secret_file="$state_dir/secret.env"
  umask 077
  mkdir -p "$state_dir"
  chmod 0700 "$state_dir"
  if [[ ! -s "$secret_file" ]]; then
    tmp="$(mktemp "$state_dir/.secret.env.XXXXXX")"
    trap 'rm -f "$tmp"' EXIT
    secret="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
    [[ ${#secret} -eq 64 ]] || searxng_die "could not read 32 random bytes"
    printf 'SEARXNG_SECRET=%s\n' "$secret" > "$tmp"
    chmod 0600 "$tmp"
    sync "$tmp" 2>/dev/null || true
    mv -f "$tmp" "$secret_file"
    trap - EXIT
  fi
  chmod 0600 "$secret_file"
  SEARXNG_SECRET="$(sed -n 's/^SEARXNG_SECRET=//p' "$secret_file")"
  [[ "$SEARXNG_SECRET" =~ ^[0-9a-f]{64}$ ]] ||
    searxng_die "$secret_file holds no valid SEARXNG_SECRET; delete it to make a new one"
  export SEARXNG_SECRET
}
