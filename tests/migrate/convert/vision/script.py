"""A torchvision training script's data part (torch source): what the vision tests convert."""

SRC = '''import torch
from torchvision import datasets, transforms
from torchvision.utils import save_image


def loaders(root, batch_size, use_cuda=False):
    train_kwargs = {'batch_size': batch_size}
    test_kwargs = {'batch_size': batch_size}
    if use_cuda:
        cuda_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': True}
        train_kwargs.update(cuda_kwargs)
        test_kwargs.update(cuda_kwargs)
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,))
    ])
    dataset1 = datasets.MNIST(root, train=True, download=True, transform=transform)
    dataset2 = datasets.MNIST(root, train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    return train_loader, test_loader


def plain_loader(root, shuffle):
    data = datasets.MNIST(root, train=False, transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(data, batch_size=3, shuffle=shuffle)


def flat_loader(root):
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,)),
                                    transforms.Lambda(lambda x: torch.flatten(x))])
    return torch.utils.data.DataLoader(datasets.MNIST(root, train=False, transform=transform),
                                       batch_size=3)


def cifar_loader(root, train):
    transform = transforms.Compose([transforms.ToTensor(),
                                    transforms.Normalize((0.5, 0.4, 0.3), (0.2, 0.25, 0.3))])
    data = datasets.CIFAR10(root=root, train=train, download=False, transform=transform)
    return torch.utils.data.DataLoader(data, batch_size=4)


def fake_loader(n):
    data = datasets.FakeData(size=n, image_size=(3, 8, 6), num_classes=5,
                             transform=transforms.ToTensor())
    return torch.utils.data.DataLoader(data, batch_size=4, shuffle=True)


def save_first_batch(loader, path):
    images, _ = next(iter(loader))
    save_image(images, path, nrow=2, normalize=True)
'''
