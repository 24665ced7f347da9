# shellcheck shell=bash
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/e2e/container.sh — what the tests that run in a Debian container share
# (polkit-agent.sh, gnome.sh, kde.sh, swaylock.sh). Sourced after lib.sh, never run.
#
# What the caller sets
#   RELEASE          the container's Debian release
#   IMAGE_KIND       names the root image: IMAGES/KIND-RELEASE-DIGEST.tar
#   IMAGE_PACKAGES   mmdebstrap's --include (comma-separated), before image_path runs
#   MACHINE          the container's name (nspawn's state for it is named after it)
# and may override from the environment: MIRROR (SR_E2E_MIRROR), IMAGES (SR_E2E_IMAGES).
#
# Functions
#   image_path                 IMAGE, named by a digest of release, mirror, architecture,
#                              package list and month (a release's packages move on)
#   make_image                 the image, made once with mmdebstrap (variant apt); a new one
#                              replaces the older images of the kind and release
#   unpack_image ROOT          the image unpacked into ROOT; ROOT_LOCK names the lock nspawn
#                              takes on ROOT's inode (locks/inode-DEV:INO)
#   install_module ROOT        the module where the package puts it, beside ROOT's
#                              pam_unix.so (PAM_DIR, the host path), its core in ../secureroom/
#   inner_unit ROOT [LINE...]  a unit in ROOT that runs this script's inner run at boot
#                              (SR_E2E_* and SECUREROOM_* set; each LINE one more unit line,
#                              such as Environment=...) and powers the container off after
#   boot_container LIMIT       boots $T/root (private network, $T bound, the checkout read-only)
#                              for at most LIMIT seconds; shows the inner run's output;
#                              returns nspawn's status
# Hooks it defines (a caller may redefine them and call the container_* ones)
#   outer_snapshot, outer_header, outer_on_abort, outer_cleanup, outer_leftovers
#
# nspawn's state is under /run/systemd/nspawn: the container's propagation directory and
# the lock on its root. The cleanup removes this container's and no other's (other tests
# may run containers meanwhile), and the directories only if there were none before and
# they are empty now; the leftover check looks at this container's state alone.

MIRROR=${SR_E2E_MIRROR:-http://deb.debian.org/debian}
IMAGES=${SR_E2E_IMAGES:-$REPO/.build/e2e-images}
NSPAWN_RUN=/run/systemd/nspawn
IMAGE= ROOT_LOCK= PAM_DIR=

image_path() {
    local digest
    digest=$(printf '%s %s %s %s %s\n' "$RELEASE" "$MIRROR" "$(dpkg --print-architecture)" "$IMAGE_PACKAGES" \
        "$(date -u +%Y-%m)" | sha256sum | cut -c1-12)
    IMAGE="$IMAGES/$IMAGE_KIND-$RELEASE-$digest.tar"
}

make_image() {
    [ -f "$IMAGE" ] && return 0
    local start=$SECONDS
    install -d -m 0755 "$IMAGES"
    rm -f "$IMAGES/$IMAGE_KIND-$RELEASE-"*.tar "$IMAGES/$IMAGE_KIND-$RELEASE-"*.tar.partial
    echo "# making the root image (mmdebstrap $RELEASE from $MIRROR; once)"
    # A mirror's testing or unstable may be a snapshot whose Release file has expired.
    if ! mmdebstrap --quiet --format=tar --variant=apt --include="$IMAGE_PACKAGES" \
            --aptopt='Acquire::Check-Valid-Until "false"' \
            "$RELEASE" "$IMAGE.partial" "$MIRROR" > "$T/mmdebstrap.log" 2>&1; then
        tail -n 20 "$T/mmdebstrap.log" | sed 's/^/#   mmdebstrap: /'
        rm -f "$IMAGE.partial"
        die "mmdebstrap of the root image failed"
    fi
    mv "$IMAGE.partial" "$IMAGE"
    echo "# time: root image made in $((SECONDS - start)) s ($(( $(stat -c %s "$IMAGE") / 1048576 )) MB)"
}

unpack_image() {
    install -d -m 0755 "$1"
    tar -C "$1" -xf "$IMAGE" || die "could not unpack $IMAGE into $1"
    ROOT_LOCK=locks/inode-$(stat -c '%d:%i' "$1")
}

install_module() {
    PAM_DIR=$(find "$1/usr/lib" -name pam_unix.so -printf '%h\n' -quit)
    [ -n "$PAM_DIR" ] || die "the image has no pam_unix.so"
    install -m 0644 "$MODULE" "$PAM_DIR/pam_secureroom.so" \
        && install -d -m 0755 "$PAM_DIR/../secureroom" \
        && install -m 0644 "${MODULE%/*}/pam_secureroom_core.so" "$PAM_DIR/../secureroom/pam_secureroom_core.so" \
        || die "could not install the module into the container's root"
}

inner_unit() {
    local root=$1 line
    shift
    {
        cat <<UNIT
[Unit]
Description=SecureRoom e2e: $E2E_NAME's inner run
After=multi-user.target

[Service]
Type=oneshot
Environment=SR_E2E_INNER=1 "SR_E2E_T=$T" "SECUREROOM_MODULE=$MODULE" "SECUREROOM_CLI=$CLI" SR_E2E_TIMEOUT=$TIMEOUT
UNIT
        for line; do printf '%s\n' "$line"; done
        cat <<UNIT
ExecStart=/bin/bash "$SELF"
StandardOutput=file:$T/inner.log
StandardError=inherit
ExecStopPost=/usr/bin/systemctl --no-block poweroff

[Install]
WantedBy=multi-user.target
UNIT
    } > "$root/etc/systemd/system/secureroom-e2e.service"
    install -d -m 0755 "$root/etc/systemd/system/multi-user.target.wants"
    ln -s /etc/systemd/system/secureroom-e2e.service \
        "$root/etc/systemd/system/multi-user.target.wants/secureroom-e2e.service" \
        || die "could not enable the inner run's unit in the container's root"
}

boot_container() {
    local limit=$1 rc=0 start=$SECONDS
    : > "$T/inner.log"
    # The whole boot, test and power-off, bounded. The unified cgroup hierarchy, also on a
    # host with the hybrid one: systemd 256 and later no longer boot on cgroup v1.
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 timeout --kill-after=10 "$limit" systemd-nspawn --quiet --boot \
        --directory="$T/root" --machine="$MACHINE" --register=no --keep-unit --private-network \
        --console=pipe --bind="$T" --bind-ro="$(readlink -f "$REPO")" > "$T/boot.log" 2>&1 || rc=$?
    cat "$T/inner.log"
    echo "# time: container booted, tested and powered off in $((SECONDS - start)) s"
    return "$rc"
}

container_snapshot() {
    NSPAWN_RUN_EXISTED=0
    [ -e "$NSPAWN_RUN" ] && NSPAWN_RUN_EXISTED=1
    return 0
}
container_header() {
    echo "# systemd-nspawn $(systemd-nspawn --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'), image: $IMAGE"
}
container_on_abort() {
    if [ -s "$T/boot.log" ]; then tail -n 15 "$T/boot.log" | sed 's/^/#   boot: /'; fi
}
container_cleanup() {
    rm -rf "$NSPAWN_RUN/propagate/$MACHINE"
    [ -z "$ROOT_LOCK" ] || rm -f "$NSPAWN_RUN/$ROOT_LOCK"
    if [ "${NSPAWN_RUN_EXISTED:-1}" = 0 ]; then
        rmdir "$NSPAWN_RUN/propagate" "$NSPAWN_RUN/locks" "$NSPAWN_RUN" 2>/dev/null || true
    fi
}
container_leftovers() {
    [ -z "$(find "$NSPAWN_RUN" -name "*$MACHINE*" 2>/dev/null)" ] \
        && { [ -z "$ROOT_LOCK" ] || [ ! -e "$NSPAWN_RUN/$ROOT_LOCK" ]; }
}

outer_snapshot() { container_snapshot; }
outer_header() { container_header; }
outer_on_abort() { container_on_abort; }
outer_cleanup() { container_cleanup; }
outer_leftovers() { container_leftovers; }
