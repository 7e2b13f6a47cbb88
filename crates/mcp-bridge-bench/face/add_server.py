import socket, sys
from fastmcp import FastMCP

mcp = FastMCP("bench-add")

@mcp.tool
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b

if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
        mcp.run(transport="http", show_banner=False, sockets=[sock], log_level="warning")
    else:
        mcp.run(transport="stdio", show_banner=False, log_level="warning")
