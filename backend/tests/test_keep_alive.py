"""`Retry-After` and keep-alive agree: a client that waits the api's advertised Retry-After,
then reuses its keep-alive connection, is answered on it (the api as `make up` starts it)."""

import http.client
import os
import subprocess
import time

import latlab_stack as localstack
from latlab.main import RETRY_AFTER_S
from tests.conftest import wait_for


def test_a_client_that_waits_retry_after_reuses_its_connection(tmp_path) -> None:
    port = localstack.free_port()
    env = {"LATLAB_DATA_DIR": str(tmp_path), "LATLAB_HOST": "127.0.0.1",
           "LATLAB_PORT": str(port), "LATLAB_HOST_NAME": "keep-alive"}
    (api,) = [p for p in localstack.programs(env, []) if p.name == "api"]
    process = subprocess.Popen(api.argv, env={**os.environ, **env,
                                              "LATLAB_PUBLIC_URL": f"http://127.0.0.1:{port}"})
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

        def answers() -> bool:
            try:
                connection.request("GET", "/api/v1/openapi.json")
                return connection.getresponse().read() != b""
            except OSError:
                connection.close()
                return False

        wait_for(answers, timeout=90, interval=0.5)
        first = connection.sock
        time.sleep(RETRY_AFTER_S + 1)  # the client waits what a 503 advertises
        connection.request("GET", "/api/v1/openapi.json")
        assert connection.getresponse().status == 200 and connection.sock is first
    finally:
        process.terminate()
        process.wait(20)
