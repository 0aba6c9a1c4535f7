"""The Redis channel layer, with a connection pool that waits for a free connection.

channels-redis builds redis-py's default pool, which raises `MaxConnectionsError` the moment
more commands are in flight than it holds connections. A burst of tabs closing (a restart, a
proxy reload) runs one `group_discard` per tab at once, so most of them failed and left their
group memberships in Redis until the group expiry. Each of these commands takes about a
millisecond: waiting a moment for a connection is the right answer, not an error.
"""

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class WaitingRedisChannelLayer(RedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        """Return a pool for `hosts[index]` (a dict with an `address` URL and pool options)."""
        options = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(options.pop("address"), **options)
