"""perf's samples folded into stacks from the root: a golden file of real `perf script` output,
collapsed stacks summed, and a profile too large keeping its heaviest stacks and saying so."""

import logging
from collections import Counter
from pathlib import Path

import pytest

from latlab_contract.result import folded_stacks
from latlab_workers import stacks as folding
from latlab_workers.stacks import fold_collapsed, fold_perf_script, folded_text

GOLDEN = Path(__file__).parent / "golden"


def _stack(*frames: str) -> tuple[str, ...]:
    return frames


# Folded by hand from golden/perf-script.txt (18 samples, 12 distinct stacks): root first,
# offsets gone, `[libzmq.so.5.2.4]` where perf knows only the module, inlined frames kept, and
# the zero return address ending the Zig server's coroutine stacks (ffffffffffffffff
# [unknown]) dropped.
_TOKIO = ("clone3", "start_thread", "<std::sys::thread::unix::Thread>::new::thread_start",
          "core::ops::function::FnOnce::call_once{{vtable.shim}}",
          "std::sys::backtrace::__rust_begin_short_backtrace", "tokio::runtime::task::raw::poll")


_HANDLER = (*_TOKIO, "tokio::runtime::scheduler::multi_thread::worker::Context::run_task",
            "tokio::runtime::task::raw::poll", "axum::serve::handle_connection::{{closure}}::"
            "{{closure}}", "<hyper_util::server::conn::auto::UpgradeableConnection<I,S,E> as "
            "core::future::future::Future>::poll",
            "hyper::proto::h1::dispatch::Dispatcher<D,Bs,I,T>::poll_write")


_ZIG_MAIN = ("_start", "__libc_start_main_impl", "__libc_start_call_main", "start.main",
             "start.callMainWithArgs", "start.callMain", "main.main", "coro.Loop.run")


_ZIG_CORO = ("coro.start", "main.serve", "main.serveOne")


_SYSCALL = ("entry_SYSCALL_64_after_hwframe", "do_syscall_64")


_SLEEP = ("schedule_hrtimeout_range_clock", "schedule", "__schedule",
          "finish_task_switch.isra.0")


_SEND = (*_SYSCALL, "__x64_sys_sendto", "__sys_sendto", "tcp_sendmsg", "tcp_sendmsg_locked")


_PUSH = (*_SEND, "__tcp_push_pending_frames", "tcp_write_xmit", "__tcp_transmit_skb")


EXPECTED_FOLD = {
    (*_ZIG_CORO, "main.receive", "os.linux.recvfrom", "os.linux.x86_64.syscall6", *_SYSCALL,
     "__x64_sys_recvfrom", "__sys_recvfrom", "sock_recvmsg", "tcp_recvmsg",
     "tcp_recvmsg_locked", "__tcp_cleanup_rbuf", "__tcp_select_window"): 1,
    (*_ZIG_CORO, "main.sendAll", "os.linux.errno__func_31", *_SEND,
     "__check_object_size"): 1,
    (*_ZIG_CORO, "main.sendAll", "os.linux.errno__func_31", *_PUSH, "__ip_queue_xmit",
     "ip_output", "ip_finish_output2", "__dev_queue_xmit", "dev_hard_start_xmit",
     "loopback_xmit", "__netif_rx", "netif_rx_internal", "enqueue_to_backlog",
     "_raw_spin_unlock_irqrestore"): 1,
    (*_ZIG_CORO, "main.sendAll", "os.linux.errno__func_31", *_PUSH, "bbr_cwnd_event"): 1,
    ("_start", "__libc_start_main_impl", "__libc_start_call_main", "main", "zmq_poll",
     "__GI___poll", *_SYSCALL, "__x64_sys_poll", "do_sys_poll",
     "poll_schedule_timeout.constprop.0", *_SLEEP): 1,
    _ZIG_MAIN: 1,
    (*_ZIG_MAIN, *_SYSCALL, "__x64_sys_epoll_pwait", "do_epoll_pwait.part.0",
     "do_epoll_wait", *_SLEEP): 2,
    (*_TOKIO, "tokio::runtime::scheduler::multi_thread::worker::Context::park_internal",
     "tokio::runtime::time::Driver::park_internal", "tokio::runtime::io::driver::Driver::turn",
     "epoll_wait", *_SYSCALL, "__x64_sys_epoll_wait", "do_epoll_wait", *_SLEEP): 1,
    (*_HANDLER, "<axum::util::MapIntoResponseFuture<F> as core::future::future::Future>::poll",
     "<F as axum::handler::Handler<(M,T1,T2),S>>::call::{{closure}}"): 3,
    (*_HANDLER, "<axum::util::MapIntoResponseFuture<F> as core::future::future::Future>::poll",
     "<F as axum::handler::Handler<(M,T1,T2),S>>::call::{{closure}}",
     "<std::sys::pal::unix::time::Timespec>::now", "__GI___clock_gettime",
     "__vdso_clock_gettime"): 4,
    (*_HANDLER, "core::ptr::drop_in_place<tower::util::oneshot::State<tower::util::"
     "boxed_clone_sync::BoxCloneSyncService<http::request::Request<axum_core::body::Body>,"
     "http::response::Response<axum_core::body::Body>,core::convert::Infallible>,http::"
     "request::Request<axum_core::body::Body>>>"): 1,
    ("clone3", "start_thread", *["[libzmq.so.5.2.4]"] * 5, "__libc_send", "__libc_send",
     *_PUSH, "__ip_queue_xmit", "__sk_dst_check", "ipv4_dst_check"): 1,
}


def test_perf_script_output_folds_into_stacks_from_the_root() -> None:
    lines = (GOLDEN / "perf-script.txt").read_text().splitlines()
    stacks = fold_perf_script(lines)
    assert dict(stacks) == EXPECTED_FOLD
    headers = [line for line in lines if line and not line[0].isspace()]
    assert sum(stacks.values()) == len(headers) == 18
    # The text a profile carries reads back as the same stacks (the contract's reader).
    assert folded_stacks(folded_text(stacks, "golden")) == dict(stacks)


def test_collapsed_stacks_are_summed_and_empty_frames_named() -> None:
    stacks = fold_collapsed([
        "<module> (load.py:1);main (load.py:9);spin (load.py:3) 5\n",
        " 2\n",  # py-spy: a sample outside any Python code
        "<module> (load.py:1);main (load.py:9);spin (load.py:3) 4\n",
        "not a stack\n"])
    assert stacks == Counter({("<module> (load.py:1)", "main (load.py:9)",
                               "spin (load.py:3)"): 9, ("[unknown]",): 2})


def test_a_profile_too_large_keeps_its_heaviest_stacks_and_says_so(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    stacks = Counter({("main", f"leaf{n}"): n for n in range(1, 101)})
    stacks[tuple(f"f{n}" for n in range(600))] = 1000
    monkeypatch.setattr(folding, "MAX_PROFILE_CHARS", 3000)
    with caplog.at_level(logging.WARNING):
        text = folded_text(stacks, "server")
    kept = folded_stacks(text)
    deep = next(frames for frames in kept if len(frames) > 2)
    assert len(deep) == 512 and deep[0] == "[truncated]" and deep[-1] == "f599"
    assert len(text) <= 3000 and ("main", "leaf100") in kept and ("main", "leaf1") not in kept
    assert min(kept.values()) > max(n for n in range(1, 101) if ("main", f"leaf{n}")
                                    not in kept)
    assert "kept the" in caplog.text and "heaviest" in caplog.text
