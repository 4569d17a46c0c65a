// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a frame an XDP program sends back (XDP_TX) leaves a veth (veth.h): it reaches
 * the peer only when the peer runs NAPI for XDP frames, which an XDP program of its
 * own turns on (GRO, which turns NAPI on for packets, was seen not to be enough on
 * 6.18: the answers were counted and lost). The peer is found by its index (the
 * veth's ethtool statistic peer_ifindex) in its network namespace (the veth's
 * IFLA_LINK_NETNSID, matched to a namespace of /run/netns or of a process by
 * RTM_GETNSID), and asked there (IFLA_XDP).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "attach.h"
#include "veth.h"

static int ethtool(int sock, const char *ifname, void *cmd)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(sock, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static bool is_veth(int sock, const char *ifname)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };

	return !ethtool(sock, ifname, &info) && !strcmp(info.driver, "veth");
}

/* The veth's ethtool statistic peer_ifindex: the peer's index, or -errno. */
static int peer_ifindex(int sock, const char *ifname)
{
	/* struct ethtool_sset_info and the one length it returns (data[] is flexible) */
	__u64 words[(sizeof(struct ethtool_sset_info) + sizeof(__u32) + 7) / 8] = { 0 };
	struct ethtool_sset_info *sset = (struct ethtool_sset_info *)words;
	struct ethtool_gstrings *names = NULL;
	struct ethtool_stats *stats = NULL;
	__u32 n, i;
	int ret = -ENOENT;

	sset->cmd = ETHTOOL_GSSET_INFO;
	sset->sset_mask = 1ULL << ETH_SS_STATS;
	if (ethtool(sock, ifname, sset) || !(sset->sset_mask & (1ULL << ETH_SS_STATS)))
		return -ENOENT;
	n = sset->data[0];
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(__u64));
	if (!names || !stats) {
		ret = -ENOMEM;
		goto out;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	if (ethtool(sock, ifname, names) || ethtool(sock, ifname, stats))
		goto out;
	for (i = 0; i < n; i++)
		if (!strncmp((char *)names->data + (size_t)i * ETH_GSTRING_LEN, "peer_ifindex",
			     ETH_GSTRING_LEN))
			ret = (int)stats->data[i];
out:
	free(names);
	free(stats);
	return ret;
}

/* One rtnetlink request and its answer into buf: the answer's length, or -errno. */
static int rtnl_ask(void *req, size_t len, char *buf, size_t size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h;
	int fd, n;

	memset(buf, 0, size); /* a short answer reads as zeros, never as stack garbage */
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (n = (int)recv(fd, buf, size, 0)) < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	h = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(h, (unsigned int)n))
		return -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error ?: -ENOENT;
	return n;
}

/* The attribute type of attrs (len bytes): its payload, or NULL. */
static struct rtattr *rta_find(struct rtattr *rta, int len, unsigned short type)
{
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == type)
			return rta;
	return NULL;
}

/* ifindex's RTM_GETLINK answer into buf: its attributes at *attrs, *len bytes; or -errno. */
static int link_get(int ifindex, char *buf, size_t size, struct rtattr **attrs, int *len)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST },
		.i = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex },
	};
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int n = rtnl_ask(&req, sizeof(req), buf, size);

	if (n < 0)
		return n;
	*attrs = IFLA_RTA(NLMSG_DATA(h));
	*len = (int)IFLA_PAYLOAD(h);
	return 0;
}

/*
 * The network namespace id of ifindex's link (IFLA_LINK_NETNSID): 0 with *nsid set,
 * -ENOENT when the link is in this namespace, or -errno.
 */
static int link_netnsid(int ifindex, int *nsid)
{
	char buf[16384];
	struct rtattr *attrs, *a;
	int len, err = link_get(ifindex, buf, sizeof(buf), &attrs, &len);

	if (err)
		return err;
	a = rta_find(attrs, len, IFLA_LINK_NETNSID);
	if (!a)
		return -ENOENT;
	*nsid = *(int *)RTA_DATA(a);
	return 0;
}

/* The id this namespace gives the namespace of fd (RTM_GETNSID), or -errno. */
static int nsid_of(int fd)
{
	struct {
		struct nlmsghdr h;
		struct rtgenmsg g;
		char pad[3];
		struct rtattr a;
		__u32 fd;
	} req = {
		.h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETNSID,
		       .nlmsg_flags = NLM_F_REQUEST },
		.g = { .rtgen_family = AF_UNSPEC },
		.a = { .rta_len = RTA_LENGTH(sizeof(__u32)), .rta_type = NETNSA_FD },
		.fd = (__u32)fd,
	};
	char buf[1024];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct rtattr *a;
	int n = rtnl_ask(&req, sizeof(req), buf, sizeof(buf));

	if (n < 0)
		return n;
	a = rta_find((struct rtattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct rtgenmsg))),
		     (int)(h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct rtgenmsg)))),
		     NETNSA_NSID);
	return a ? *(int *)RTA_DATA(a) : -ENOENT;
}

/* A namespace (/run/netns, a process's) this namespace knows as nsid: an fd, or -ENOENT. */
static int netns_by_nsid(int nsid)
{
	static const char *const dirs[] = { "/run/netns", "/proc" };
	char path[300];
	struct dirent *de;
	int fd = -ENOENT;
	size_t d;

	for (d = 0; d < 2 && fd < 0; d++) {
		DIR *dir = opendir(dirs[d]);

		while (dir && fd < 0 && (de = readdir(dir))) {
			if (de->d_name[0] == '.' || (d == 1 && (de->d_name[0] < '0' ||
								 de->d_name[0] > '9')))
				continue;
			snprintf(path, sizeof(path), d ? "%s/%s/ns/net" : "%s/%s", dirs[d],
				 de->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && nsid_of(fd) != nsid) {
				close(fd);
				fd = -ENOENT;
			}
		}
		if (dir)
			closedir(dir);
	}
	return fd;
}

/* An XDP program on the interface ifindex of this namespace (IFLA_XDP): 1, 0, or -errno. */
static int xdp_on(int ifindex)
{
	char buf[16384];
	struct rtattr *attrs, *x, *a;
	int len, err = link_get(ifindex, buf, sizeof(buf), &attrs, &len);

	if (err)
		return err;
	x = rta_find(attrs, len, IFLA_XDP);
	a = x ? rta_find(RTA_DATA(x), (int)RTA_PAYLOAD(x), IFLA_XDP_ATTACHED) : NULL;
	return a && *(__u8 *)RTA_DATA(a) != XDP_ATTACHED_NONE;
}

/* The peer, asked in its namespace (bb_in_netns_fd()). */
struct peer_ask {
	int ifindex;
	char *name;
};

static int peer_xdp_on(void *arg)
{
	struct peer_ask *p = arg;

	if (!if_indextoname((unsigned int)p->ifindex, p->name))
		p->name[0] = '\0';
	return xdp_on(p->ifindex);
}

int bb_veth_tx_lost(const char *ifname, char peer[IF_NAMESIZE])
{
	int sock, ifindex = (int)if_nametoindex(ifname), nsid, fd, ret;
	struct peer_ask ask = { .name = peer };

	peer[0] = '\0';
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	if (!ifindex || !is_veth(sock, ifname)) {
		close(sock);
		return 0;
	}
	ask.ifindex = peer_ifindex(sock, ifname);
	close(sock);
	if (ask.ifindex <= 0)
		return ask.ifindex < 0 ? ask.ifindex : -ENOENT;
	ret = link_netnsid(ifindex, &nsid);
	if (ret == -ENOENT) {	/* the peer is here */
		ret = peer_xdp_on(&ask);
	} else if (!ret) {
		fd = netns_by_nsid(nsid);
		if (fd < 0)
			return fd;
		ret = bb_in_netns_fd(fd, peer_xdp_on, &ask);
		close(fd);
	}
	return ret < 0 ? ret : !ret;
}
